#!/bin/bash
# scavenger send over loopback: 500 MB file, receiver in another process.
set -e
BIN=${BIN:-target/release/scavenger}   # run from the workspace root
D=/tmp/transfer-bench; rm -rf $D; mkdir -p $D/src $D/dst
head -c 500000000 /dev/urandom > $D/src/big.bin
echo tok > $D/token
$BIN receive --listen 127.0.0.1:0 --dir $D/dst --token-file $D/token > $D/recv.out 2>$D/recv.err &
RP=$!
sleep 1
read _ _ ADDR _ FP < $D/recv.out
for alg in "" "--algorithm cubic"; do
  rm -f $D/dst/big.bin
  $BIN send $D/src/big.bin --to $ADDR --token-file $D/token --fingerprint $FP --json $alg
done
kill $RP; wait $RP || true
rm -rf $D

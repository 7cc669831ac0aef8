"""The store's table reaches pandas through Arrow without a copy (issue 20 item 4)."""

import pyarrow as pa

import scavenger


def _addresses(arr):
    return [b.address if b is not None else None for b in arr.buffers()]


def test_store_table_reaches_pandas_without_a_copy(tmp_path, plan):
    out = tmp_path / "s"
    scavenger.sweep(plan, out=out, jobs=2, progress=False)
    batch = scavenger._core.table(str(out))
    df = scavenger._frame(batch)
    assert len(df) == batch.num_rows == 12
    assert list(df.columns) == batch.schema.names
    numeric = [f.name for f in batch.schema if pa.types.is_floating(f.type) or pa.types.is_integer(f.type)]
    assert "flows.a.goodput_bps" in numeric and "seed" in numeric
    for name in numeric + ["param.link.delay", "key"]:
        col = batch.column(name)
        got = df[name].array.__arrow_array__()  # the ChunkedArray the pandas column wraps
        assert got.num_chunks == 1, name
        # The same memory: every buffer (validity, offsets, values) at the same address.
        assert _addresses(got.chunk(0)) == _addresses(col), name
        assert got.chunk(0).equals(col), name
    # The default conversion, for contrast, copies the values into NumPy.
    copied = batch.to_pandas()["flows.a.goodput_bps"].to_numpy()
    assert copied.ctypes.data != batch.column("flows.a.goodput_bps").buffers()[1].address


def test_load_store_is_the_arrow_backed_frame(tmp_path, plan):
    out = tmp_path / "s"
    df = scavenger.sweep(plan, out=out, jobs=2, progress=False)
    assert str(df["flows.a.goodput_bps"].dtype) == "double[pyarrow]"
    assert df["flows.a.goodput_bps"].gt(0).all()
    # What a user does next still works: arithmetic, groupby, NumPy out.
    g = df.groupby("param.link.delay")["flows.a.goodput_bps"].mean()
    assert len(g) == 3
    assert df["flows.a.goodput_bps"].to_numpy(dtype="float64").shape == (12,)

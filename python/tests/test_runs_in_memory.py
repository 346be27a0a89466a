"""Runs in memory are refused as the CSV file of the same rows.

Each case is a table of runs (rows of {column: value}) with one bad
value or column.  It is written as a CSV file -- a header naming the
table's columns, then one line a row, each cell the value's text: a
whole number as its digits, another number in its shortest form, NaN as
``nan``, text as itself -- and given to calibrate() as that file, as a
pandas DataFrame, as a dict of columns and as a list of dicts (NaN in
the optional loss_se and kv_heads is none, as their empty cell).  Every
form must raise the same exception class, and the same message: the
file's refusal is ``FILE:LINE:COLUMN: MESSAGE`` (its str), the
in-memory refusal is MESSAGE alone (``exc.message`` equal, ``str(exc)``
without a position, as no file is at fault); both name the 1-based row
counting data rows only, and the column by its key."""

import math

import pytest

import headalloc

pandas = pytest.importorskip("pandas")

GOOD = [
    {"heads": 32, "head_dim": 8, "samples": 1e6, "loss": 2.4},
    {"heads": 16, "head_dim": 16, "samples": 1e7, "loss": 2.1},
    {"heads": 8, "head_dim": 32, "samples": 1e8, "loss": 1.9},
]


def with_value(row, column, value, base=GOOD):
    """GOOD with row's (1-based) column set to value (None: removed)."""
    rows = [dict(r) for r in base]
    if value is None:
        del rows[row - 1][column]
    else:
        rows[row - 1][column] = value
    return rows


def with_column(column, values, base=GOOD):
    return [dict(r, **{column: v}) for r, v in zip(base, values)]


def without(column, base=GOOD):
    return [{k: v for k, v in r.items() if k != column} for r in base]


CASES = {
    "samples one": (with_value(2, "samples", 1), None),
    "samples nan": (with_value(3, "samples", math.nan), None),
    "samples above 1e300": (with_value(1, "samples", 1e301), None),
    "heads zero": (with_value(1, "heads", 0), None),
    "head_dim not whole": (with_value(2, "head_dim", 8.5), None),
    "loss zero": (with_value(2, "loss", 0), None),
    "loss negative": (with_value(3, "loss", -1.5), None),
    "loss_se negative": (with_column("loss_se", [0.01, -0.01, 0.02]), None),
    "loss_se zero": (with_column("loss_se", [0.01, math.nan, 0]), None),
    "kv_heads not a divisor": (with_column("kv_heads", [8, 5, 8]), None),
    "kv_heads text": (with_column("kv_heads", [8, "two", 8]), None),
    "kv_heads zero": (with_column("kv_heads", [8, 0, 8]), None),
    "heads times head_dim overflows": (
        with_value(2, "head_dim", 4294967296, with_value(2, "heads", 4294967296)), None),
    "model_dim not a multiple": (
        with_column("model_dim", [256, 250, 256], without("head_dim")), None),
    "model_dim not heads times head_dim": (with_column("model_dim", [256, 256, 512]), None),
    "loss missing": (without("loss"), None),
    "head_dim and model_dim missing": (without("head_dim"), None),
    "mapped column missing": (GOOD, {"kv_heads": "n_kv_head"}),
    "mapped loss missing": (GOOD, {"loss": "val/loss"}),
    "mapped model_dim missing": (without("head_dim"), {"model_dim": "n_embd"}),
    "unknown key mapped": (GOOD, {"width": "n_embd"}),
    "two keys one column": (GOOD, {"heads": "loss"}),
}


def cell(column, value):
    if isinstance(value, float) and math.isnan(value):
        # NaN in memory: none in an optional column, as its empty cell
        return "" if column in ("loss_se", "kv_heads") else "nan"
    if isinstance(value, float) and value == int(value) and abs(value) < 2 ** 53:
        return "%d" % value
    return str(value)


def write_csv(path, rows):
    header = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(cell(k, r[k]) if k in r else "" for k in header) + "\n")


def forms(rows):
    """The in-memory forms of rows."""
    header = list(dict.fromkeys(k for r in rows for k in r))
    return {"DataFrame": pandas.DataFrame(rows),
            "dict of columns": {k: [r.get(k) for r in rows] for k in header},
            "list of dicts": rows}


def refusal(call):
    with pytest.raises(headalloc.Error) as e:
        call()
    return e.value


@pytest.mark.parametrize("case", sorted(CASES))
def test_in_memory_runs_are_refused_as_the_csv_file(case, tmp_path):
    rows, columns = CASES[case]
    path = str(tmp_path / "runs.csv")
    write_csv(path, rows)
    from_file = refusal(lambda: headalloc.calibrate(path, columns=columns, bootstrap=0))
    assert isinstance(from_file, headalloc.InputError)
    prefix = "" if from_file.file is None else "%s:%d:%d: " % (
        path, from_file.line, from_file.column)
    assert str(from_file) == prefix + from_file.message
    for form, runs in forms(rows).items():
        got = refusal(lambda: headalloc.calibrate(runs, columns=columns, bootstrap=0))
        assert type(got) is type(from_file), (form, got)
        assert got.message == from_file.message, form
        assert str(got) == got.message and got.file is None, form


def test_the_messages_name_the_row_and_the_value():
    """The words themselves, for a few cases (the comparison above would
    also pass were both sides wrong alike)."""
    want = {
        "samples one": "row 2, samples: expected a number > 1 and <= 1e300, found '1'",
        "samples nan": "row 3, samples: expected a number > 1 and <= 1e300, found 'nan'",
        "heads zero": "row 1, heads: expected an integer from 1 to 9223372036854775807, "
                      "found '0'",
        "head_dim not whole": "row 2, head_dim: expected an integer from 1 to "
                              "9223372036854775807, found '8.5'",
        "loss_se negative": "row 2, loss_se: expected a number > 0, found '-0.01'",
        "kv_heads not a divisor": "row 2, kv_heads: expected a divisor of heads (16), "
                                  "found 5",
        "mapped column missing": "header: expected the column 'n_kv_head' (named for "
                                 "kv_heads), found none",
        "unknown key mapped": "columns: expected a key heads, head_dim, model_dim, "
                              "samples, loss, loss_se or kv_heads, found 'width'",
    }
    for case, message in want.items():
        rows, columns = CASES[case]
        assert refusal(lambda: headalloc.calibrate(rows, columns=columns,
                                                   bootstrap=0)).message == message, case


def test_plan_refuses_in_memory_runs_as_the_csv_file(tmp_path):
    rows, _ = CASES["kv_heads not a divisor"]
    path = str(tmp_path / "runs.csv")
    write_csv(path, rows)
    from_file = refusal(lambda: headalloc.plan(path, budget=512, samples=1e8))
    got = refusal(lambda: headalloc.plan(pandas.DataFrame(rows), budget=512, samples=1e8))
    assert type(got) is type(from_file) and got.message == from_file.message


@pytest.mark.filterwarnings("ignore::headalloc.HeadallocWarning")
def test_mapped_model_dim_in_memory_is_the_csv_files(tmp_path):
    """A tracker's table under its own names, head_dim from model_dim: the
    same runs from memory as from the CSV file."""
    rows = [{"n_head": r["heads"], "n_embd": r["heads"] * r["head_dim"],
             "tokens": r["samples"], "val/loss": r["loss"], "step": 7}
            for r in GOOD + [{"heads": 4, "head_dim": 64, "samples": 3e8, "loss": 1.8}]]
    columns = {"heads": "n_head", "model_dim": "n_embd", "samples": "tokens",
               "loss": "val/loss"}
    path = str(tmp_path / "runs.csv")
    write_csv(path, rows)
    want = headalloc.calibrate(path, columns=columns, bootstrap=0)
    for form, runs in forms(rows).items():
        got = headalloc.calibrate(runs, columns=columns, bootstrap=0)
        assert got.to_dict()["calibration"] == want.to_dict()["calibration"], form

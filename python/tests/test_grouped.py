"""Grouped-query attention in Python: allocate(kv_heads=...,
max_kv_dim=..., pareto=...), pareto(), grouped sweeps and the refusals.
Each result is compared with the CLI's YAML (read by PyYAML) bit for
bit, and the optimum and the front with a brute force over every (H, G,
d) written here in NumPy from headalloc-model(7)'s formula."""

import math

import numpy as np
import pytest

import headalloc
from conftest import golden
from test_golden import same

# (golden case mirrored, the CLI's flags, allocate's keywords)
CASES = [
    ("grouped-yaml",
     "--budget 4096 --samples 1e12 --hdi 0.8 --group-hdi 0.3 --max-kv-dim 512 --layers 32 "
     "--kv-bytes 2 --model-dim 4096 --max-loss-ratio 1.05",
     dict(budget=4096, samples=1e12, model=headalloc.Model(hdi=0.8), group_hdi=0.3,
          max_kv_dim=512, layers=32, kv_bytes=2, model_dim=4096, max_loss_ratio=1.05)),
    ("grouped-json",
     "--budget 512 --samples 1e9 --kv-heads auto --min-kv-heads 2 --max-kv-heads 16 --pareto",
     dict(budget=512, samples=1e9, kv_heads="auto", min_kv_heads=2, max_kv_heads=16,
          pareto=True)),
    ("grouped-pareto-text",
     "--budget 4096 --samples 1e12 --kv-heads auto --max-kv-dim 1024 --pareto",
     dict(budget=4096, samples=1e12, kv_heads="auto", max_kv_dim=1024, pareto=True)),
    ("grouped-fixed-kv-heads",
     "--budget 4096 --samples 1e10 --hdi 0.9 --kv-heads 8 --layers 80 --model-dim 8192",
     dict(budget=4096, samples=1e10, model=headalloc.Model(hdi=0.9), kv_heads=8, layers=80,
          model_dim=8192)),
]

FIELDS = ("heads", "kv_heads", "group_size", "head_dim", "kv_dim", "kv_cache_bytes_per_token",
          "mse", "loss_ratio")


def fields_equal(entry, want):
    for f in FIELDS:
        assert getattr(entry, f) == want[f], (f, getattr(entry, f), want[f])
    assert entry.attention_params == want.get("attention_params")
    assert entry.terms.bias2 == want["bias2"] and entry.terms.covariance == want["covariance"]


@pytest.mark.parametrize("case, flags, kwargs", CASES)
def test_grouped_allocation_matches_cli(cli, case, flags, kwargs):
    golden(case)
    want = cli(*flags.split())
    a = headalloc.allocate(**kwargs)
    assert isinstance(a, headalloc.GroupedAllocation)
    same(a.to_dict(), want)
    fields_equal(a, want["optimum"])
    fields_equal(a.unconstrained, want["unconstrained"])
    assert a.relaxed._asdict() == {k: want["relaxed"][k] if k != "log_mse" else a.relaxed.log_mse
                                   for k in a.relaxed._fields}
    assert a.relaxed.log_mse / math.log(10) == pytest.approx(want["relaxed"]["log10_mse"],
                                                             rel=1e-14)
    assert a.certificate._asdict() == want["certificate"]
    if "front" in want:
        assert len(a.front) == len(want["front"])
        for entry, w in zip(a.front, want["front"]):
            fields_equal(entry, w)
        same(a.front.to_dict(), want["front"])
    else:
        assert a.front is None
    if "chosen" in want:
        fields_equal(a.chosen, want["chosen"])
        assert a.chosen is a.front.chosen and a.max_loss_ratio == want["max_loss_ratio"]
        assert a.chosen in a.front
    else:
        assert a.chosen is None


def test_pareto_is_allocate_with_the_front(cli):
    golden("grouped-pareto-text")
    want = cli("--budget", 4096, "--samples", "1e12", "--kv-heads", "auto", "--max-kv-dim",
               1024, "--pareto", "--max-loss-ratio", 1.05)
    front = headalloc.pareto(4096, 1e12, max_kv_dim=1024, max_loss_ratio=1.05)
    assert isinstance(front, headalloc.Front)
    same(front.allocation.to_dict(), want)
    assert [(e.heads, e.kv_heads, e.head_dim) for e in front] == \
        [(w["heads"], w["kv_heads"], w["head_dim"]) for w in want["front"]]
    assert (front.chosen.kv_heads, front.chosen.head_dim) == \
        (want["chosen"]["kv_heads"], want["chosen"]["head_dim"])
    # best error first, smallest cache last; the chosen entry is the last within 1.05
    caches = [e.kv_cache_bytes_per_token for e in front]
    assert caches == sorted(caches, reverse=True)
    within = [e for e in front if e.loss_ratio <= 1.05]
    assert front.chosen is within[-1]


def test_front_to_pandas():
    pandas = pytest.importorskip("pandas")
    front = headalloc.pareto(512, 1e9, min_kv_heads=2, max_kv_heads=16)
    df = front.to_pandas()
    assert isinstance(df, pandas.DataFrame) and len(df) == len(front)
    assert df["kv_heads"].tolist() == [e.kv_heads for e in front]


def brute_force(budget, n, hdi, group_hdi, max_kv_dim=0, min_g=0, max_g=0):
    """Every (H, G, d) with H d = D and G | H, by headalloc-model(7)'s
    formula with the default s = 2, c_b = c_v = 1, γ = 1/2, κ = 0, β = 1."""
    rows = []
    rho, rho_g = 1 - hdi, 1 - group_hdi
    for d in range(1, budget + 1):
        if budget % d:
            continue
        h = budget // d
        for g in range(1, h + 1):
            if h % g:
                continue
            if (max_kv_dim and g * d > max_kv_dim) or (min_g and g < min_g) or \
                    (max_g and g > max_g):
                continue
            size = h // g
            f = (1 + (size - 1) * rho_g + (h - size) * rho) / h
            # ln(d^-2 + d^(d/2) / n F), in log space (d^(d/2) is beyond a double)
            log_mse = np.logaddexp(-2 * math.log(d), 0.5 * d * math.log(d) - math.log(n)
                                   + math.log(f))
            rows.append((float(log_mse), g * d, h, g, d))
    return rows


@pytest.mark.parametrize("seed", range(4))
def test_grouped_agrees_with_brute_force(seed):
    rng = np.random.default_rng(seed)
    budget = int(rng.choice([96, 256, 360, 512, 720]))
    n = float(10 ** rng.uniform(5, 12))
    hdi, group_hdi = float(rng.uniform(0.2, 1)), float(rng.uniform(0, 1))
    max_kv_dim = int(rng.integers(budget // 8, budget))
    model = headalloc.Model(hdi=hdi)
    a = headalloc.allocate(budget, n, model, group_hdi=group_hdi, max_kv_dim=max_kv_dim,
                           pareto=True)
    rows = brute_force(budget, n, hdi, group_hdi, max_kv_dim)
    best = min(r[0] for r in rows)
    assert a.log_mse == pytest.approx(best, abs=1e-12)
    assert a.kv_dim <= max_kv_dim and a.heads % a.kv_heads == 0
    unconstrained = min(r[0] for r in brute_force(budget, n, hdi, group_hdi))
    assert a.unconstrained.log_mse == pytest.approx(unconstrained, abs=1e-12)
    # the front: ascending cache, each entry better than every smaller cache
    front, best_so_far = [], math.inf
    for log_mse, kv_dim, *_ in sorted(rows, key=lambda r: (r[1], r[0])):
        if log_mse < best_so_far - 1e-12:
            front.append((kv_dim, log_mse))
            best_so_far = log_mse
    front.reverse()
    assert [e.kv_dim for e in a.front] == [k for k, _ in front]
    for e, (_, log_mse) in zip(a.front, front):
        assert e.log_mse == pytest.approx(log_mse, abs=1e-12)
        assert e.loss_ratio == pytest.approx(math.exp(log_mse - unconstrained), rel=1e-11)


def test_grouped_sweep_matches_cli(cli):
    golden("grouped-sweep-yaml")
    want = cli("--budget", "2048,8192", "--samples", "1e9,1e12", "--max-kv-dim", 512,
               "--group-hdi", 0.2)
    s = headalloc.sweep([2048, 8192], [1e9, 1e12], max_kv_dim=512, group_hdi=0.2)
    same(s.to_dict(), want)
    for key in ("kv_heads", "kv_dim", "kv_cache_bytes_per_token", "heads", "mse"):
        np.testing.assert_array_equal(s[key], [row[key] for row in want["table"]])
    # each row is the single point's grouped optimum
    for row in want["table"]:
        a = headalloc.allocate(row["budget"], row["samples"], max_kv_dim=512, group_hdi=0.2)
        assert (a.heads, a.kv_heads, a.head_dim, a.mse) == \
            (row["heads"], row["kv_heads"], row["head_dim"], row["mse"])


def test_grouped_sweep_fixed_kv_heads_and_shape_match_cli(cli):
    want = cli("--budget", "1024,4096", "--samples", "1e8:1e12:5", "--kv-heads", 8,
               "--layers", 32, "--kv-bytes", 1, "--hdi", 0.7)
    s = headalloc.sweep([1024, 4096], headalloc.geomspace(1e8, 1e12, 5),
                        headalloc.Model(hdi=0.7), kv_heads=8, layers=32, kv_bytes=1)
    same(s.to_dict(), want)
    assert set(s.kv_heads) == {8}
    np.testing.assert_array_equal(s.kv_cache_bytes_per_token, 2 * s.kv_dim * 32)


@pytest.mark.skipif(not headalloc._ext.plot_available, reason="built without plots")
def test_grouped_sweep_and_regimes_pictures_are_the_clis(cli, tmp_path):
    # the same bytes as the CLI's --plot of the same grouped problem
    import subprocess
    from conftest import CLI
    runs = [
        (headalloc.sweep([768, 4096], headalloc.geomspace(1e4, 1e16, 7), max_kv_dim=512),
         ["--budget", "768,4096", "--samples", "1e4:1e16:7", "--max-kv-dim", "512"]),
        (headalloc.regimes([768, 4544], min_kv_heads=4, max_kv_dim=512),
         ["--budget", "768,4544", "--min-kv-heads", "4", "--max-kv-dim", "512",
          "--regimes"]),
    ]
    for i, (result, flags) in enumerate(runs):
        mine, theirs = tmp_path / ("py%d.svg" % i), tmp_path / ("cli%d.svg" % i)
        result.plot(mine)
        subprocess.run([CLI, *flags, "--plot", str(theirs)], check=True,
                       capture_output=True)
        assert mine.read_bytes() == theirs.read_bytes(), flags


def test_ungrouped_calls_are_unchanged():
    # without a KV option: the Allocation and the sweep over (H, d) as before
    assert type(headalloc.allocate(512, 1e8)) is headalloc.Allocation
    assert "kv_heads" not in headalloc.sweep([512], [1e8]).keys()


@pytest.mark.skipif(not headalloc._ext.plot_available, reason="built without plots")
def test_front_picture(tmp_path):
    front = headalloc.pareto(4096, 1e12, max_kv_dim=1024)
    front.plot(tmp_path / "front.svg")
    assert (tmp_path / "front.svg").read_text().lstrip().startswith("<?xml")
    assert front._repr_png_()[:4] == b"\x89PNG"
    no_front = headalloc.allocate(4096, 1e12, max_kv_dim=1024)
    assert no_front._repr_png_() is None
    with pytest.raises(headalloc.InputError, match="pareto=True"):
        no_front.plot(tmp_path / "x.png")


@pytest.mark.parametrize("kwargs, words", [
    (dict(kv_heads="many"), ["kv_heads", "'many'"]),
    (dict(kv_heads=0), ["kv_heads", "0"]),
    (dict(kv_heads=8.0), ["kv_heads", "8.0"]),
    (dict(kv_heads=True), ["kv_heads", "True"]),
    (dict(max_kv_dim=-1), ["max_kv_dim", "-1"]),
    (dict(max_kv_dim=2 ** 63), ["max_kv_dim", str(2 ** 63)]),
    (dict(min_kv_heads="2"), ["min_kv_heads", "'2'"]),
    (dict(kv_heads="auto", layers=0), ["layers", "0"]),
    (dict(kv_heads="auto", kv_bytes=1.5), ["kv_bytes", "1.5"]),
    (dict(kv_heads="auto", group_hdi=1.5), ["group_hdi", "1.5"]),
    (dict(kv_heads="auto", group_hdi="x"), ["group_hdi", "'x'"]),
    (dict(pareto="yes"), ["pareto", "'yes'"]),
    (dict(max_loss_ratio=0.9), ["max_loss_ratio", "0.9"]),
    (dict(max_loss_ratio=math.inf), ["max_loss_ratio", "inf"]),
    (dict(layers=32), ["layers", "go with"]),
    (dict(group_hdi=0.3), ["group_hdi", "go with"]),
    (dict(min_kv_heads=8, max_kv_heads=4), ["min_kv_heads 8", "max_kv_heads 4"]),
    (dict(kv_heads=2, min_kv_heads=4), ["kv_heads 2", "min_kv_heads 4"]),
    (dict(kv_heads=32, max_kv_heads=16), ["kv_heads 32", "max_kv_heads 16"]),
    (dict(kv_heads="auto", layers=2 ** 62, kv_bytes=2 ** 62),
     ["layers 4611686018427387904", "exceed"]),
])
def test_bad_kv_arguments_name_argument_and_value(kwargs, words):
    with pytest.raises(headalloc.InputError) as e:
        headalloc.allocate(4096, 1e9, **kwargs)
    assert isinstance(e.value, ValueError)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_grouped_refusals():
    with pytest.raises(headalloc.InfeasibleError, match="max_kv_dim 4"):
        headalloc.allocate(4096, 1e9, max_kv_dim=4, min_head_dim=8)
    with pytest.raises(headalloc.InfeasibleError, match="max_loss_ratio 1.001"):
        headalloc.allocate(4096, 1e12, kv_heads=1, max_loss_ratio=1.001)
    with pytest.raises(headalloc.InputError, match="pareto and max_loss_ratio need"):
        headalloc.sweep([512, 1024], [1e9], pareto=True)
    with pytest.raises(headalloc.InputError, match="pareto and max_loss_ratio need"):
        headalloc.sweep([512], [1e8, 1e9], kv_heads="auto", max_loss_ratio=1.1)
    with pytest.raises(headalloc.InputError, match="regimes: pareto=True"):
        headalloc.regimes(4096, kv_heads=8, pareto=True)
    with pytest.raises(headalloc.InputError, match="go with"):
        headalloc.regimes(4096, group_hdi=0.2)
    with pytest.raises(headalloc.UnsupportedError, match="pareto=True"):
        headalloc.allocate(512, 1e8, kv_heads="auto").candidates()
    with pytest.raises(TypeError, match="kv_head"):
        headalloc.allocate(512, 1e8, kv_head=8)
    # a budget whose triples exceed the library's bound
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47]
    with pytest.raises(headalloc.UnsupportedError, match="14348907 triples"):
        headalloc.allocate(math.prod(primes), 1e9, kv_heads="auto")


def test_grouped_regimes_match_cli(cli):
    # the golden case's regimes (a single point's report with --regimes):
    # the regimes do not depend on n, so regimes() gives the same rows
    golden("grouped-regimes-yaml")
    want = cli("--budget", 4096, "--samples", "1e12", "--max-kv-dim", 1024,
               "--group-hdi", 0.2, "--regimes")
    r = headalloc.regimes(4096, max_kv_dim=1024, group_hdi=0.2)
    same(r.table, want["regimes"])
    assert list(r.keys()) == ["budget", "heads", "kv_heads", "head_dim", "kv_dim",
                              "samples_from", "samples_to", "log10_samples_from",
                              "log10_samples_to"]
    np.testing.assert_array_equal(r.kv_dim, r.kv_heads * r.head_dim)
    assert (r.kv_dim <= 1024).all()
    # and the CLI's own report of the regimes alone, header included
    alone = cli("--budget", "4096,768", "--kv-heads", 4, "--group-hdi", 0.5,
                "--layers", 2, "--regimes")
    r = headalloc.regimes([4096, 768], kv_heads=4, group_hdi=0.5, layers=2)
    same(r.to_dict(), alone)
    assert set(r.kv_heads) == {4}
    # without a KV option: the regimes over (H, d) as before
    assert "kv_heads" not in headalloc.regimes(4096).keys()

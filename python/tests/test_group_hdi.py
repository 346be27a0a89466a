"""Model.group_hdi: the diversity of query heads that
share a key/value head, carried to the library and back exactly."""

import pytest

import headalloc
from headalloc import Model


def test_group_hdi_defaults_to_zero_and_round_trips():
    assert Model().group_hdi == 0.0
    m = Model(hdi=0.8, group_hdi=0.3)
    assert m.group_hdi == 0.3
    assert m.to_dict()["group_hdi"] == 0.3
    assert "group_hdi" not in Model(hdi=0.8).to_dict()  # default: not written
    assert m != Model(hdi=0.8)


def test_group_hdi_outside_its_domain_is_refused():
    with pytest.raises(headalloc.InputError, match="group_hdi"):
        Model(group_hdi=1.5)
    with pytest.raises(headalloc.InputError, match="group_hdi"):
        Model(group_hdi=-0.1)


def test_ungrouped_allocation_is_unchanged_by_group_hdi():
    # G = H: F is rho + (1 - rho)/H whatever group_hdi is
    a = headalloc.allocate(512, 1e8, model=Model(hdi=0.8))
    b = headalloc.allocate(512, 1e8, model=Model(hdi=0.8, group_hdi=0.7))
    assert (a.heads, a.head_dim, a.mse) == (b.heads, b.head_dim, b.mse)

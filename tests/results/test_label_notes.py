"""The corrected estimates' notes (results/active_labels.label_notes)."""

from types import SimpleNamespace

from itemeval.results.active_labels import label_notes


def _row(low, high, n=8, cell="g1"):
    return SimpleNamespace(
        rater="me",
        design="uniform",
        se=0.0 if low == high else 0.1,
        labels_only_se=0.2,
        ci_low=low,
        ci_high=high,
        n_labelled=n,
        gen_condition_id=cell,
        grade_condition_id="j",
    )


def test_a_zero_width_corrected_interval_is_said_with_the_rule_of_three():
    (note,) = label_notes([_row(1.0, 1.0, n=8), _row(0.4, 0.9, cell="g2")], {"g1": "a"})
    assert "in a the interval has zero width" in note
    assert "up to 38%" in note  # 3 / 8
    assert label_notes([_row(0.4, 0.9)], {}) == []

"""An inspect `.eval` log per collected batch, which inspect's own reader (and so
`inspect view`) reads like a live run's."""

from __future__ import annotations

from inspect_ai.log import read_eval_log

from tests.engine.batch.test_executor import batch_study, run, serve, solutions
from tests.helpers import ARITH


def test_each_collected_batch_leaves_an_eval_log_of_its_replies(
    tmp_path, capsys, monkeypatch
):
    rows = [dict(ARITH[0]), {**ARITH[1], "question": "FAIL500 What is 7 * 6?"}]
    path = batch_study(tmp_path, rows=rows)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 1
    (log_path,) = (tmp_path / "studies" / "t" / "logs" / "generate").glob("*.eval")
    log = read_eval_log(str(log_path))
    assert log.status == "success" and log.eval.model == "openai-api/local/test-model"
    assert log.eval.metadata["batch_id"] == "batch-local-1"
    samples = {s.metadata["item_id"]: s for s in log.samples}
    stored = solutions(tmp_path)
    assert sorted(samples) == ["a1", "a2"]
    assert samples["a1"].output.completion == stored.loc["a1", "solution"]
    assert samples["a1"].output.usage.output_tokens == stored.loc["a1", "output_tokens"]
    assert "What is 2 + 3?" in samples["a1"].input
    assert samples["a2"].error is not None and "500" in samples["a2"].error.message

"""tools/mutants.py can apply every one of its mutations to today's code (issue 28.7: seven
had silently stopped applying after refactoring); running them is the mutation trial's job."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_mutation_applies(capsys):
    spec = importlib.util.spec_from_file_location("sdc_mutants", ROOT / "tools" / "mutants.py")
    mutants = importlib.util.module_from_spec(spec)
    sys.modules["sdc_mutants"] = mutants               # dataclasses look their module up
    spec.loader.exec_module(mutants)
    status = mutants.main(["--check"])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert f"{len(mutants.MUTATIONS)} of {len(mutants.MUTATIONS)} mutations apply" in out.out
    names = [m.name for m in mutants.MUTATIONS]
    assert len(set(names)) == len(names)
    assert {"suppress-default-order", "anneal-group-cap"} <= set(names)

"""The documentation keeps its promises: the rules page defines every rule id the tests cite,
and no file of the project points outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES_PAGE = ROOT / "docs" / "rules.md"


def rule_ids_defined() -> set[str]:
    """Ids the rules page defines: section headings (``## R5 ...``, ``### R9.2 ...``), bold ids
    (``**R5.3 ...**``, ``**R9.1.4**``, the Camel Up Cup's ``**C5 ...**``) and worked examples
    (``**E1 ...**``)."""
    text = RULES_PAGE.read_text()
    headings = re.findall(r"^#{2,3} (R\d+(?:\.\d+)*)\b", text, flags=re.M)
    bold = re.findall(r"\*\*((?:[RC]\d+(?:\.\d+)*)|E\d)\b", text)
    return set(headings) | set(bold)


def test_every_rule_id_cited_by_a_test_name_is_on_the_rules_page() -> None:
    cited = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        for name in re.findall(r"def test_((?:[RC]\d+(?:_\d+)*)|E\d)(?=_|\()", path.read_text()):
            cited.add(name.replace("_", "."))
    defined = rule_ids_defined()
    assert len(cited) > 40  # the scan found the rule tests
    assert cited <= defined, f"cited by tests but not defined on docs/rules.md: {cited - defined}"
    # and the page defines the whole specification: R0-R14 (R14: the Persian tutorial's
    # preset), every worked example
    assert {f"R{i}" for i in range(15)} <= defined
    assert {f"E{i}" for i in range(1, 9)} <= defined
    assert {f"C{i}" for i in range(1, 14)} <= defined  # the Camel Up Cup preset


def test_no_tracked_file_points_outside_the_repository() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    offenders = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in {".md", ".py", ".yml", ".yaml", ".toml", ".txt", ".cfg", ""}:
            continue
        outside = r"\.\./shared/|/work/shared|/work/\.mirror"
        if (
            path.is_file()
            and re.search(outside, path.read_text(errors="ignore"))
            and path != Path(__file__).resolve()
        ):
            offenders.append(name)
    assert offenders == []


def test_the_agents_page_lists_what_camelup_agents_prints() -> None:
    """docs/agents.md shows the output of ``camelup agents``: every registered name and prefix
    with its description, as the command prints them."""
    import sys

    printed = subprocess.run(  # a fresh process: what a user sees, not this session's registry
        [sys.executable, "-c", "from camelup_cli.main import main; main(['agents'])"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    page = (ROOT / "docs" / "agents.md").read_text()
    assert len(printed) >= 8
    for line in printed:
        assert line in page, f"docs/agents.md lacks the line {line!r}"

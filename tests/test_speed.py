"""The speed command's table (no timing is asserted: figures come from the command, never from tests)."""
from __future__ import annotations

from scanner import speed
from scanner.batch import bench


def test_table_has_a_row_per_kind_and_size_and_every_stage():
    rows = [{"photo": "a", "kind": "sudoku", "size": 9, "seconds": 0.2, "cpu": 0.15, "proc": 0.25,
             "timings": {"load": 0.04, "find": 0.03}},
            {"photo": "b", "kind": "sudoku", "size": 9, "seconds": 0.4, "cpu": 0.3, "proc": 0.5,
             "timings": {"load": 0.05, "read": 0.1}},
            {"photo": "c", "kind": "none", "size": 0, "seconds": 0.1, "cpu": 0.05, "proc": 0.07, "timings": {}}]
    lines = speed.format_rows(rows).splitlines()
    assert lines[0].split() == ["kind", "size", "photos", "median", "p90", "max", "cpu", "proc", "load", "find",
                                "read"]
    sudoku = next(line.split() for line in lines if line.split()[0] == "sudoku")
    assert sudoku[:8] == ["sudoku", "9x9", "2", "400", "400", "400", "300", "500"]
    assert sudoku[8:] == ["45", "30", "100"]
    assert lines[-1].split()[:7] == ["all", "3", "200", "400", "400", "150", "250"]


def test_cached_page_names_keep_the_sudoku_name():
    assert bench.page_name(3) == "page_0003.jpg"
    assert bench.page_name(3, "takuzu") == "takuzu_0003.jpg"


def test_cold_runs_may_write_bytecode_and_start_after_an_untimed_run(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(speed.subprocess, "run", lambda args, **kw: calls.append((args, kw["env"])))
    walls = speed.measure_cold([tmp_path / "a.jpg", tmp_path / "b.jpg"], out=tmp_path)
    assert len(walls) == 4 and len(calls) == 5  # one untimed, then twice each
    assert all("PYTHONDONTWRITEBYTECODE" not in env for _, env in calls)


def test_slowest_lists_the_photos_taking_most_cpu_first_with_their_longest_stages():
    rows = [{"photo": "/x/a.jpg", "kind": "sudoku", "size": 9, "grids": 1, "seconds": 0.5, "cpu": 0.1, "proc": 0.2,
             "timings": {"load": 0.04}},
            {"photo": "/x/b.jpg", "kind": "takuzu", "size": 12, "grids": 2, "seconds": 0.3, "cpu": 0.25,
             "proc": 0.3, "timings": {"load": 0.05, "read": 0.12, "find": 0.08}},
            {"photo": "/x/c.jpg", "kind": "none", "size": 0, "grids": 0, "seconds": 0.1, "cpu": 0.05, "proc": 0.07,
             "timings": {}}]
    lines = speed.format_slowest(rows, 2, stages=2).splitlines()
    assert len(lines) == 2
    assert lines[0].split() == ["b.jpg", "takuzu", "12x12", "(2", "grids)", "300", "ms", "cpu", "250", "proc", "300",
                                "read", "120", "find", "80"]
    assert lines[1].split()[:3] == ["a.jpg", "sudoku", "9x9"]


def test_against_gives_this_trees_cpu_over_the_others_photo_by_photo():
    def row(photo, kind, size, cpu):
        return {"photo": photo, "kind": kind, "size": size, "grids": 1, "seconds": cpu, "cpu": cpu, "timings": {}}

    ours = {"a": row("a", "takuzu", 16, 0.5), "b": row("b", "takuzu", 6, 0.2), "c": row("c", "sudoku", 9, 0.3),
            "d": row("d", "takuzu", 8, 0.9)}
    theirs = {"a": row("a", "takuzu", 16, 0.4), "b": row("b", "sudoku", 6, 0.4), "c": row("c", "sudoku", 9, 0.3)}
    lines = speed.format_against(ours, theirs, name="old", slowest=2).splitlines()
    # photo d, which the other tree did not read, is left out; photo b counts under this tree's kind
    assert lines[1].split() == ["sudoku", "photos", "1", "this", "300", "old", "300", "ratio", "median", "1.00",
                                "max", "1.00"]
    assert lines[2].split() == ["takuzu", "photos", "2", "this", "350", "old", "400", "ratio", "median", "0.88",
                                "max", "1.25"]
    assert lines[3].split()[:2] == ["a", "takuzu"] and lines[3].split()[-1] == "1.25"
    assert lines[4].split()[0] == "c"

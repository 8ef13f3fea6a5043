"""The scan-solve command line on text puzzles: output, the --json contract, exit codes, errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import SAMPLES
from scanner.cli import main
from scanner.report import CONTRACT_FIELDS
from solver import kinds
from solver.errors import ExitCode

GRID1 = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
GRID1_SOLUTION_ROW1 = [4, 8, 3, 9, 2, 1, 6, 5, 7]


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def json_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture
def puzzle_file(tmp_path):
    def write(text: str, name: str = "p.txt"):
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


def test_solves_a_sudoku_line_and_prints_the_grid(capsys, puzzle_file):
    code, out, err = run_cli(capsys, puzzle_file(GRID1 + "\n"))
    assert code == ExitCode.OK, err
    assert "solved" in out
    assert "4 8 3" in out.replace("|", " ").replace("  ", " ")


def test_json_record_keeps_the_contract(capsys, puzzle_file):
    code, out, _ = run_cli(capsys, "--json", puzzle_file(GRID1 + "\n" + GRID1.replace("003", "000", 1) + "\n"))
    records = json_lines(out)
    assert len(records) == 2
    first = records[0]
    assert list(first)[: len(CONTRACT_FIELDS)] == list(CONTRACT_FIELDS)
    assert first["kind"] == "sudoku" and first["size"] == 9 and first["index"] == 0
    assert first["givens"][0][:3] == [None, None, 3]
    assert first["status"] == "solved"
    assert first["solution"][0] == GRID1_SOLUTION_ROW1
    assert first["relations"] == []
    assert isinstance(first["difficulty"], str) and first["difficulty"]
    assert isinstance(first["seconds"], float)
    assert records[1]["index"] == 1


def test_ambiguous_puzzle_returns_two_solutions_and_its_exit_code(capsys, puzzle_file):
    code, out, _ = run_cli(capsys, "--json", puzzle_file("." * 16 + "\n"))
    record = json_lines(out)[0]
    assert code == ExitCode.AMBIGUOUS
    assert record["status"] == "ambiguous" and record["solution"] is None
    a, b = record["solutions"]
    assert a != b


def test_contradictory_givens_are_reported_as_such(capsys, puzzle_file):
    code, out, _ = run_cli(capsys, "--json", puzzle_file("55" + "." * 79 + "\n"))
    record = json_lines(out)[0]
    assert code == ExitCode.IMPOSSIBLE
    assert record["status"] == "impossible"
    assert "contradictory" in record["reason"]


@pytest.mark.parametrize(
    "text, code, words",
    [
        ("12345\n", ExitCode.MALFORMED, ":1"),
        ("0" * 80 + "x\n", ExitCode.MALFORMED, ":1:81"),
        ("2" * 100 + "\n", ExitCode.MALFORMED, ":1"),
    ],
)
def test_malformed_text_gives_one_line_with_its_position(capsys, puzzle_file, text, code, words):
    rc, out, err = run_cli(capsys, puzzle_file(text))
    assert rc == code
    assert len(err.strip().splitlines()) == 1 and words in err
    assert "Traceback" not in err


def test_odd_takuzu_is_malformed(capsys, puzzle_file):
    rc, _, err = run_cli(capsys, "--kind", "takuzu", puzzle_file("0" + "." * 24 + "\n"))
    assert rc == ExitCode.MALFORMED and len(err.strip().splitlines()) == 1


def test_bad_files_get_the_input_exit_code(capsys, tmp_path, puzzle_file):
    empty = puzzle_file("", "empty.txt")
    fake_jpeg = puzzle_file("this is text", "photo.jpg")
    for path, words in ((empty, "empty"), (fake_jpeg, "not an image"), (str(tmp_path / "missing.txt"), "no such file")):
        rc, _, err = run_cli(capsys, path)
        assert rc == ExitCode.INPUT and words in err and len(err.strip().splitlines()) == 1


def test_bad_arguments_give_one_line_and_usage_code(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--kind", "kakuro", "x.txt"])
    assert info.value.code == ExitCode.USAGE
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_one_bad_file_does_not_stop_the_others(capsys, puzzle_file, tmp_path):
    rc, out, err = run_cli(capsys, "--json", str(tmp_path / "missing.txt"), puzzle_file(GRID1))
    records = json_lines(out)
    assert rc == ExitCode.INPUT
    assert [r["status"] for r in records] == ["unreadable", "solved"]
    assert records[0]["exit_code"] == ExitCode.INPUT


@pytest.mark.parametrize("kind, size", [("futoshiki", 5), ("takuzu", 8), ("sudoku", 6)])
def test_every_kind_is_sniffed_and_solved_from_its_text(capsys, puzzle_file, kind, size):
    k = kinds.get(kind)
    puzzle = k.generate(size, seed=3)
    for text in (k.format_grid(puzzle), k.format_line(puzzle)):
        rc, out, err = run_cli(capsys, "--json", puzzle_file(text + "\n"))
        record = json_lines(out)[0]
        assert rc == ExitCode.OK, err
        assert record["kind"] == kind and record["size"] == size
        assert k.is_solution(puzzle, record["solution"])
        if kind == "futoshiki":
            assert len(record["relations"]) == len(puzzle.relations)


def test_explain_and_hint(capsys, puzzle_file):
    path = puzzle_file(GRID1)
    rc, out, _ = run_cli(capsys, "--explain", path)
    assert rc == ExitCode.OK
    assert "grade:" in out and "  1. " in out
    rc, out, _ = run_cli(capsys, "--hint", path)
    assert rc == ExitCode.OK
    assert out.count("hint:") == 1 and "  2. " not in out


def test_stdin_and_text_path_does_not_import_opencv():
    code = (
        "import sys, io; sys.stdin = io.StringIO(%r); from scanner.cli import main; rc = main(['-']); "
        "assert 'cv2' not in sys.modules, 'cv2 imported on the text path'; sys.exit(rc)" % GRID1
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "solved" in proc.stdout


def test_one_photo_keeps_the_single_file_output(tmp_path):
    photo = tmp_path / "one.jpg"
    photo.write_bytes((SAMPLES / "sudoku" / "photo_6x6.jpg").read_bytes())
    proc = subprocess.run([sys.executable, "-m", "scanner.cli", str(photo), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert "batch:" not in proc.stderr and "#1" not in proc.stdout
    assert f"{photo} [1]: sudoku 6x6" in proc.stdout
    assert not (tmp_path / "out" / "report.jsonl").exists()


def test_text_files_in_batch_mode_load_no_image_libraries(tmp_path):
    (tmp_path / "a.txt").write_text(GRID1 + "\n")
    code = (
        "import sys; from scanner.cli import main; rc = main(['--jobs', '2', '--json', %r]); "
        "heavy = [m for m in ('cv2', 'pypdfium2', 'tqdm', 'PIL') if m in sys.modules]; "
        "assert not heavy, heavy; sys.exit(rc)" % str(tmp_path / "a.txt")
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["status"] == "solved" and record["page"] == 1
    assert "batch: 1 page;" in proc.stderr


def test_bad_batch_options_are_usage_errors(capsys):
    for argv in (["--jobs", "0", "x.txt"], ["--dpi", "abc", "x.txt"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == ExitCode.USAGE
    capsys.readouterr()

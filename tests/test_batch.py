"""Batch runs: folders, multi-page PDFs and TIFFs, faults reported page by page, report.jsonl, resume, progress."""
from __future__ import annotations

import hashlib
import io
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from conftest import SAMPLES
from scanner.batch import resume, units, worker
from scanner.batch.progress import Progress
from scanner.batch.summary import Tally
from scanner.cli import main
from solver.errors import ExitCode

GOOD = SAMPLES / "sudoku" / "photo_6x6.jpg"
GOOD2 = SAMPLES / "real" / "image10.jpg"
GRID1 = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"


def make_pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A minimal PDF with the given objects (object 1 is the catalogue) and trailer entries."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R " % (len(objects) + 1) + trailer
    out += b">>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def encrypted_pdf() -> bytes:
    """A one-page PDF with a standard security handler whose (empty) user password does not open it."""
    return make_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -4 >>",
    ], b"/Encrypt 4 0 R /ID [<" + b"33" * 16 + b"> <" + b"33" * 16 + b">] ")


def three_page_pdf(path: Path) -> None:
    """Page 1: a Sudoku photo; page 2: blank paper; page 3: another Sudoku photo."""
    pages = [Image.open(GOOD).convert("RGB"), Image.new("RGB", (800, 1000), "white"),
             Image.open(GOOD2).convert("RGB")]
    pages[0].save(path, save_all=True, append_images=pages[1:], resolution=100)


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("batch_in")
    (folder / "sub").mkdir()
    shutil.copy(GOOD, folder / "good.jpg")
    (folder / "sub" / "corrupt.jpg").write_bytes(GOOD.read_bytes()[:3000])
    three_page_pdf(folder / "sub" / "book.pdf")
    (folder / "locked.pdf").write_bytes(encrypted_pdf())
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a PDF body\n")
    return folder


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def first_run(inputs, tmp_path_factory):
    """One batch over the folder and a text puzzle file: (exit code, stdout records, stderr, out folder, digest before)."""
    out = tmp_path_factory.mktemp("batch_out") / "out"
    text = inputs.parent / "puzzle.txt"
    text.write_text(GRID1 + "\n")
    before = digest(inputs)
    capture_out, capture_err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(capture_out), contextlib.redirect_stderr(capture_err):
        code = main([str(inputs), str(text), "--out", str(out), "--json", "--jobs", "2"])
    return code, json_lines(capture_out.getvalue()), capture_err.getvalue(), out, before


def test_every_page_is_reported_once(first_run, inputs):
    code, records, err, out, _ = first_run
    pages = {(Path(r["source"]).name, r["page"]) for r in records}
    assert pages == {("good.jpg", 1), ("corrupt.jpg", 1), ("book.pdf", 1), ("book.pdf", 2), ("book.pdf", 3),
                     ("locked.pdf", None), ("broken.pdf", None), ("puzzle.txt", 1)}
    assert code == ExitCode.INPUT  # the worst: corrupt and unopenable files
    by_page = {(Path(r["source"]).name, r["page"]): r for r in records}
    assert by_page[("corrupt.jpg", 1)]["exit_code"] == ExitCode.INPUT
    assert "encrypted" in by_page[("locked.pdf", None)]["error"]
    assert by_page[("broken.pdf", None)]["exit_code"] == ExitCode.INPUT
    assert by_page[("book.pdf", 2)]["exit_code"] == ExitCode.NO_PUZZLE
    assert by_page[("puzzle.txt", 1)]["status"] == "solved"
    for name in (("good.jpg", 1), ("book.pdf", 1), ("book.pdf", 3)):
        assert by_page[name]["kind"] == "sudoku", by_page[name]
    assert "batch: 8 pages" in err and "failed pages: 3" in err and "pages without a puzzle: 1" in err
    assert "locked.pdf: the PDF is encrypted" in err


def test_stdout_is_in_input_order(first_run, inputs):
    _, records, _, _, _ = first_run
    names = list(dict.fromkeys(f"{Path(r['source']).relative_to(inputs.parent)}#{r['page']}" for r in records))
    folder = inputs.name
    assert names == [f"{folder}/broken.pdf#None", f"{folder}/good.jpg#1", f"{folder}/locked.pdf#None",
                     f"{folder}/sub/book.pdf#1", f"{folder}/sub/book.pdf#2", f"{folder}/sub/book.pdf#3",
                     f"{folder}/sub/corrupt.jpg#1", "puzzle.txt#1"]


def test_report_jsonl_has_every_record_with_its_page(first_run):
    _, records, _, out, _ = first_run
    report = json_lines((out / "report.jsonl").read_text())
    key = lambda r: (r["source"], r["page"], r["index"])  # noqa: E731
    assert sorted(map(key, report)) == sorted(map(key, records))
    assert all("page" in r for r in report)


def test_overlays_mirror_the_inputs_and_inputs_are_untouched(first_run, inputs):
    _, records, _, out, before = first_run
    assert digest(inputs) == before
    drawn = {Path(r["overlay"]).relative_to(out).as_posix() for r in records if r.get("overlay")}
    assert drawn, "no puzzle was solved and drawn"
    assert drawn <= {"good.solved.jpg", "sub/book.p1.solved.jpg", "sub/book.p3.solved.jpg"}
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*.jpg")}
    assert on_disk == drawn
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]


def test_resume_skips_finished_pages_and_redoes_missing_overlays(first_run, inputs, capsys):
    _, records, _, out, _ = first_run
    code = main([str(inputs), "--out", str(out), "--resume", "--json"])
    captured = capsys.readouterr()
    assert "8 pages" not in captured.err and "7 pages (7 already done" in captured.err
    assert "0 read" in captured.err and json_lines(captured.out) == []
    assert code == ExitCode.INPUT
    drawn = [r for r in records if r.get("overlay")]
    Path(drawn[0]["overlay"]).unlink()
    main([str(inputs), "--out", str(out), "--resume", "--json"])
    redone = json_lines(capsys.readouterr().out)
    assert [(r["source"], r["page"]) for r in redone] == [(drawn[0]["source"], drawn[0]["page"])] * len(redone)
    assert Path(drawn[0]["overlay"]).exists()
    report = json_lines((out / "report.jsonl").read_text())
    assert len(report) == len(records) - 1  # the text file was not part of this run


def test_a_page_that_kills_its_worker_is_reported_and_the_rest_processed(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.jpg", "crash_me.jpg", "c.jpg", "d.jpg"):
        shutil.copy(GOOD, folder / name)
    monkeypatch.setenv(worker.CRASH_ENV, "crash_me")
    code = main([str(folder), "--out", str(tmp_path / "out"), "--json", "--jobs", "2"])
    captured = capsys.readouterr()
    records = json_lines(captured.out)
    by_name = {Path(r["source"]).name: r for r in records}
    assert set(by_name) == {"a.jpg", "crash_me.jpg", "c.jpg", "d.jpg"}
    assert by_name["crash_me.jpg"]["exit_code"] == ExitCode.SOFTWARE
    assert "died" in by_name["crash_me.jpg"]["error"]
    assert all(by_name[n]["kind"] == "sudoku" for n in ("a.jpg", "c.jpg", "d.jpg"))
    assert code == ExitCode.SOFTWARE


def test_multi_page_tiff_pages_are_units(tmp_path, capsys):
    frames = [Image.open(GOOD).convert("RGB"), Image.new("RGB", (600, 800), "white")]
    tiff = tmp_path / "scan.tif"
    frames[0].save(tiff, save_all=True, append_images=frames[1:], compression="tiff_deflate")
    assert [(u.form, u.page) for u in units.make_units([str(tiff)])] == [("tiff", 1), ("tiff", 2)]
    code = main([str(tiff), "--out", str(tmp_path / "out"), "--json", "--jobs", "1", "--quiet"])
    records = json_lines(capsys.readouterr().out)
    assert [r["page"] for r in records] == [1, 2]
    assert records[0]["kind"] == "sudoku" and records[1]["exit_code"] == ExitCode.NO_PUZZLE
    assert code == ExitCode.NO_PUZZLE or code == ExitCode.UNREADABLE
    if records[0].get("overlay"):
        assert Path(records[0]["overlay"]).name == "scan.p1.solved.jpg"


def test_units_of_a_folder_with_glob(inputs):
    listed = [(Path(u.path).name, u.page, u.form, u.rel) for u in units.make_units([str(inputs)], glob="*.pdf")]
    assert [x[:3] for x in listed] == [("broken.pdf", None, "unknown"), ("locked.pdf", None, "unknown"),
                                       ("book.pdf", 1, "pdf"), ("book.pdf", 2, "pdf"), ("book.pdf", 3, "pdf")]
    assert listed[-1][3] == "sub/book.pdf"


def test_same_name_from_two_inputs_gets_its_own_subfolder(tmp_path):
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        shutil.copy(GOOD, tmp_path / folder / "p.jpg")
    rels = [u.rel for u in units.make_units([str(tmp_path / "x" / "p.jpg"), str(tmp_path / "y" / "p.jpg")])]
    assert rels == ["p.jpg", "_2/p.jpg"]


def test_resume_retries_crashes_and_torn_lines(tmp_path):
    report = tmp_path / "report.jsonl"
    good = {"source": "a.jpg", "page": 1, "index": 0, "kind": "sudoku", "status": "solved"}
    crashed = {"source": "b.pdf", "page": 2, "kind": None, "status": "unreadable", "exit_code": 1}
    drawn = dict(good, source="c.jpg", overlay=str(tmp_path / "missing.solved.jpg"))
    report.write_text("\n".join(json.dumps(r) for r in (good, crashed, drawn)) + '\n{"source": "d.jpg", "pa')
    done = resume.done_pages(report)
    assert list(done) == [resume.page_key("a.jpg", 1)]


def test_progress_is_quiet_off_a_terminal_and_drawn_on_one():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert Progress(total=3, enabled=True, file=io.StringIO()).bar is None
    assert Progress(total=3, enabled=False, file=Terminal()).bar is None
    term = Terminal()
    bar = Progress(total=3, enabled=True, file=term)
    tally = Tally()
    tally.add([{"source": "a", "page": 1, "kind": "sudoku", "status": "solved"}])
    bar.update(tally)
    bar.close()
    assert "1/3" in term.getvalue() and "solved=1" in term.getvalue()


def test_batch_stderr_has_no_bar_when_not_a_terminal(first_run):
    _, _, err, _, _ = first_run
    assert "\r" not in err and "page/s" not in err and "it/s" not in err


def test_resume_needs_out(inputs, capsys):
    assert main([str(inputs), "--resume"]) == ExitCode.USAGE
    assert "--resume needs --out" in capsys.readouterr().err


def test_an_empty_folder_is_reported_and_the_others_go_on(tmp_path):
    (tmp_path / "empty").mkdir()
    text = tmp_path / "p.txt"
    text.write_text(GRID1 + "\n")
    listed = list(units.make_units([str(tmp_path / "empty"), str(text)]))
    assert listed[0].error and "holds no images" in listed[0].error and listed[0].exit_code == ExitCode.INPUT
    assert (listed[1].form, listed[1].page) == ("text", 1)


def test_pdf_pages_render_at_the_dpi_within_the_pixel_cap(tmp_path):
    from scanner.batch import raster

    pdf = tmp_path / "a.pdf"
    Image.new("RGB", (720, 360), "white").save(pdf, resolution=72)  # a 10 x 5 inch page
    image = raster.pdf_page(pdf, 1, dpi=100)
    assert image.shape == (500, 1000, 3) and image.dtype.name == "uint8"
    capped = raster.pdf_page(pdf, 1, dpi=600, max_pixels=200_000)
    assert capped.shape[0] * capped.shape[1] <= 200_000 and capped.shape[1] == 2 * capped.shape[0]
    with pytest.raises(Exception, match="has 1 pages"):
        raster.pdf_page(pdf, 2)


def test_a_page_that_hangs_is_stopped_and_reported_and_the_rest_processed(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.jpg", "hang_me.jpg", "c.jpg"):
        shutil.copy(GOOD, folder / name)
    monkeypatch.setenv(worker.HANG_ENV, "hang_me")
    code = main([str(folder), "--out", str(tmp_path / "out"), "--json", "--jobs", "2", "--page-timeout", "6"])
    captured = capsys.readouterr()
    by_name = {Path(r["source"]).name: r for r in json_lines(captured.out)}
    assert set(by_name) == {"a.jpg", "hang_me.jpg", "c.jpg"}
    assert by_name["hang_me.jpg"]["exit_code"] == ExitCode.SOFTWARE
    assert "timed out" in by_name["hang_me.jpg"]["error"] and "after 6 s" in by_name["hang_me.jpg"]["error"]
    assert by_name["a.jpg"]["kind"] == by_name["c.jpg"]["kind"] == "sudoku"
    assert "hang_me.jpg#1: timed out" in captured.err and "failed pages: 1" in captured.err
    assert code == ExitCode.SOFTWARE


def test_pool_attributes_a_crash_to_its_page_and_keeps_its_workers_count(tmp_path, monkeypatch):
    from scanner.batch.pool import CRASH_REASON, Pool

    for name in ("a.jpg", "boom.jpg", "b.jpg", "c.jpg", "d.jpg"):
        shutil.copy(GOOD, tmp_path / name)
    monkeypatch.setenv(worker.CRASH_ENV, "boom")
    todo = [u for name in ("a", "boom", "b", "c", "d") for u in units.units_of(tmp_path / f"{name}.jpg", f"{name}.jpg")]
    with Pool(worker.Options(draw=False), jobs=2) as pool:
        results = list(pool.map(todo))
        assert len(pool._workers) <= 2
    assert sorted(r.unit.rel for r in results) == sorted(u.rel for u in todo)  # each page once
    by_rel = {r.unit.rel: r.records for r in results}
    assert by_rel["boom.jpg"][0]["error"].endswith(CRASH_REASON)
    assert all(by_rel[n][0]["kind"] == "sudoku" for n in ("a.jpg", "b.jpg", "c.jpg", "d.jpg"))
    assert pool.replaced == 2  # died beside another page, then alone


def test_resume_knows_a_folder_by_its_relative_and_its_absolute_path(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(GOOD, folder / "a.jpg")
    (folder / "bad.jpg").write_bytes(b"not a jpeg at all")
    out = tmp_path / "out"
    monkeypatch.chdir(tmp_path)
    main(["in", "--out", "out", "--json", "--jobs", "1"])
    first = json_lines(capsys.readouterr().out)
    assert len({(r["source"], r["page"]) for r in first}) == 2
    main([str(folder), "--out", str(out), "--resume", "--json", "--jobs", "1"])
    captured = capsys.readouterr()
    assert json_lines(captured.out) == [] and "2 pages (2 already done" in captured.err
    monkeypatch.chdir(folder)
    main([".", "--out", "../out", "--resume", "--json", "--jobs", "1"])
    assert "2 pages (2 already done" in capsys.readouterr().err


def test_summary_counts_every_outcome():
    tally = Tally()
    tally.add([{"source": "a.pdf", "page": 1, "kind": "sudoku", "status": "solved"},
               {"source": "a.pdf", "page": 1, "index": 1, "kind": "sudoku", "status": "unreadable"}])
    tally.add([{"source": "a.pdf", "page": 2, "kind": "sudoku", "status": "ambiguous"}])
    tally.add([worker.failure_record(units.Unit("a.pdf", 3, 3, "pdf", "a.pdf"), "a.pdf#3: no puzzle grid found",
                                     ExitCode.NO_PUZZLE)])
    tally.add([worker.failure_record(units.Unit("b.jpg", 1, 1, "image", "b.jpg"), "b.jpg#1: the file is empty",
                                     ExitCode.INPUT)])
    text = tally.text(seconds=2.0, jobs=2)
    assert "batch: 4 pages; 4 read in 2.0 s (2.00 pages/s, 2 jobs)" in text
    assert "puzzles found: 3 (solved 1, ambiguous 1, impossible 0, unreadable 1)" in text
    assert "pages without a puzzle: 1" in text and "failed pages: 1" in text
    assert "    b.jpg#1: the file is empty" in text
    assert tally.worst() == ExitCode.INPUT


def crossword_beside_a_sudoku() -> np.ndarray:
    """A page (1400, 2200, 3): the demo Sudoku clipping on the left, a 15x15 crossword (black squares, clue
    numbers) on the right."""
    page = np.full((1400, 2200, 3), 255, np.uint8)
    page[:1200, :675] = cv2.resize(cv2.imread(str(SAMPLES / "sudoku" / "demo.jpg")), (675, 1200))
    x0, y0, c = 800, 150, 60
    rng = np.random.default_rng(1)
    for r in range(15):
        for col in range(15):
            x, y = x0 + col * c, y0 + r * c
            if rng.random() < 0.18:
                cv2.rectangle(page, (x, y), (x + c, y + c), (0, 0, 0), -1)
            elif rng.random() < 0.25:
                cv2.putText(page, str(rng.integers(1, 80)), (x + 3, y + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    for k in range(16):
        cv2.line(page, (x0, y0 + k * c), (x0 + 15 * c, y0 + k * c), (0, 0, 0), 2)
        cv2.line(page, (x0 + k * c, y0), (x0 + k * c, y0 + 15 * c), (0, 0, 0), 2)
    return page


def test_every_puzzle_of_a_page_is_read_and_a_crossword_skipped(tmp_path, capsys):
    two = Image.open(SAMPLES / "sudoku" / "scan_two_puzzles.jpg").convert("RGB")
    mixed = Image.fromarray(cv2.cvtColor(crossword_beside_a_sudoku(), cv2.COLOR_BGR2RGB))
    two.save(tmp_path / "paper.pdf", save_all=True, append_images=[mixed], resolution=100)
    demo = json.loads((SAMPLES / "sudoku" / "demo.json").read_text())
    out = tmp_path / "out"
    code = main([str(tmp_path / "paper.pdf"), "--out", str(out), "--json", "--jobs", "2", "--quiet"])
    records = json_lines(capsys.readouterr().out)
    assert [(r["page"], r["index"], r["kind"]) for r in records] == [(1, 0, "sudoku"), (1, 1, "sudoku"), (2, 0, "sudoku")]
    assert all(r["status"] == "solved" and r["source"] == str(tmp_path / "paper.pdf") for r in records)
    assert records[2]["givens"] == demo["givens"]  # the crossword gave no record
    assert [Path(r["overlay"]).name for r in records] == ["paper.p1.solved.jpg", "paper.p1.2.solved.jpg",
                                                         "paper.p2.solved.jpg"]
    assert code == ExitCode.OK


def test_tiff_pages_come_upright_in_bgr_and_capped_in_pixels(tmp_path):
    from scanner.batch import raster

    colour = np.zeros((100, 200, 3), np.uint8)
    colour[:10, :20] = (255, 0, 0)  # red, top-left as stored
    bilevel = Image.fromarray(np.where(np.arange(120)[None, :] < 60, 0, 255).astype(np.uint8).repeat(90, 0)).convert("1")
    path = tmp_path / "pages.tif"
    Image.fromarray(colour).save(path, save_all=True, append_images=[bilevel], tiffinfo={274: 6})  # turned 90 cw
    upright = raster.tiff_page(path, 1)
    assert upright.shape == (200, 100, 3) and list(upright[0, -1]) == [0, 0, 255] and list(upright[0, 0]) == [0, 0, 0]
    page2 = raster.tiff_page(path, 2)
    assert page2.dtype == np.uint8 and page2.shape[2] == 3 and {0, 255} == set(np.unique(page2))
    capped = raster.tiff_page(path, 1, max_pixels=5_000)
    assert capped.shape[0] * capped.shape[1] <= 5_000 and capped.shape[0] == 2 * capped.shape[1]
    with pytest.raises(Exception, match="fewer pages"):
        raster.tiff_page(path, 3)


def test_a_worker_that_dies_while_idle_is_replaced(tmp_path):
    from scanner.batch.pool import Pool

    shutil.copy(GOOD, tmp_path / "a.jpg")
    shutil.copy(GOOD, tmp_path / "b.jpg")
    [a], [b] = units.units_of(tmp_path / "a.jpg", "a.jpg"), units.units_of(tmp_path / "b.jpg", "b.jpg")
    with Pool(worker.Options(draw=False), jobs=1) as pool:
        [first] = list(pool.map([a]))
        [idle] = pool._workers
        idle.process.kill()
        idle.process.join()
        [second] = list(pool.map([b]))
        assert pool.replaced == 1 and len(pool._workers) == 1
    assert first.records[0]["kind"] == second.records[0]["kind"] == "sudoku"

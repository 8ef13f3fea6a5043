"""Regenerate the generated samples: ``.venv/bin/python samples/make.py`` (from the project root).

Each line of SAMPLES is (file stem, kind, seed, options for ``scanner.synth.write_sample``); the
README lists what each one tests. The real photos in ``real/`` are copied, not generated.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from scanner.synth import write_sample  # noqa: E402

SMALL = {"long_side": 1200, "quality": 84}
SAMPLES = [
    ("sudoku/demo", "sudoku", 105, {"size": 9, "mode": "photo", "two": False, "long_side": 1600, "quality": 88}),
    ("sudoku/photo_thick_boxes", "sudoku", 201, {"size": 9, "mode": "photo", "two": False, "turn": 0,
                                                 "style": {"box_ratio": 3.5, "box_borders": "thick"}}),
    ("sudoku/photo_barely_thicker", "sudoku", 202, {"size": 9, "mode": "photo", "two": False, "turn": 0,
                                                    "style": {"box_ratio": 1.25, "box_borders": "barely thicker"}}),
    ("sudoku/photo_shaded_givens", "sudoku", 203, {"size": 9, "mode": "photo", "two": False, "turn": 0,
                                                   "style": {"shaded_givens": True}}),
    ("sudoku/photo_turned180", "sudoku", 204, {"size": 9, "mode": "photo", "two": False, "turn": 180}),
    ("sudoku/photo_6x6", "sudoku", 205, {"size": 6, "mode": "photo", "two": False, "turn": 0}),
    ("sudoku/photo_16x16", "sudoku", 206, {"size": 16, "mode": "photo", "two": False, "turn": 0,
                                           "long_side": 1600, "quality": 84}),
    ("sudoku/scan_two_puzzles", "sudoku", 207, {"size": 9, "mode": "scan", "two": True, "turn": 0}),
    ("sudoku/scan_turned90", "sudoku", 208, {"size": 9, "mode": "scan", "two": False, "turn": 90}),
    ("futoshiki/photo_boxes_glyphs", "futoshiki", 301, {"size": 5, "mode": "photo", "two": False, "turn": 0,
                                                        "style": {"layout": "boxes", "signs": "glyph"}}),
    ("futoshiki/photo_lattice_chevrons", "futoshiki", 302, {"size": 6, "mode": "photo", "two": False, "turn": 0,
                                                            "style": {"layout": "lattice", "signs": "chevron"}}),
    ("futoshiki/photo_boxes_vcarets", "futoshiki", 303, {"size": 7, "mode": "photo", "two": False, "turn": 0,
                                                         "style": {"layout": "boxes", "signs": "vcaret"}}),
    ("futoshiki/scan_lattice_glyphs", "futoshiki", 304, {"size": 6, "mode": "scan", "two": False, "turn": 0,
                                                         "style": {"layout": "lattice", "signs": "glyph"}}),
    ("futoshiki/photo_turned90", "futoshiki", 305, {"size": 5, "mode": "photo", "two": False, "turn": 90}),
    ("takuzu/photo_digits", "takuzu", 401, {"size": 8, "mode": "photo", "two": False, "turn": 0,
                                            "style": {"symbols": "digits"}}),
    ("takuzu/photo_circles", "takuzu", 402, {"size": 10, "mode": "photo", "two": False, "turn": 0,
                                             "style": {"symbols": "circles (black = 1, white = 0)"}}),
    ("takuzu/scan_12x12", "takuzu", 403, {"size": 12, "mode": "scan", "two": False, "turn": 0,
                                          "style": {"symbols": "digits"}}),
    ("takuzu/photo_14x14_turned180", "takuzu", 404, {"size": 14, "mode": "photo", "two": False, "turn": 180}),
]


def main(only: list[str]) -> None:
    for stem, kind, seed, opts in SAMPLES:
        if only and not any(o in stem for o in only):
            continue
        opts = {**SMALL, **opts}
        out = HERE / Path(stem).parent
        out.mkdir(parents=True, exist_ok=True)
        path = write_sample(out, Path(stem).name, kind, seed=seed, **opts)
        print(path.relative_to(HERE), f"{path.stat().st_size // 1000} kB", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

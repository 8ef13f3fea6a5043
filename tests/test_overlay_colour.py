"""The overlay's colour: Lab computed without OpenCV's table-building conversion, and a colour that stands out."""
from __future__ import annotations

import cv2
import numpy as np

from scanner import overlay


def test_lab_matches_opencv_8bit_scale():
    rng = np.random.default_rng(7)
    colours = [np.array(c) for c in rng.integers(0, 256, (300, 3))] + [np.zeros(3, int), np.full(3, 255)]
    for bgr in colours:
        reference = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
        assert np.abs(overlay._lab(bgr) - reference).max() <= 1.5, bgr


def test_picked_colour_differs_from_paper_and_ink():
    page = np.full((200, 200, 3), (235, 240, 245), np.uint8)
    cv2.putText(page, "5", (60, 150), cv2.FONT_HERSHEY_SIMPLEX, 4, (20, 20, 20), 8)
    quad = np.array([[0, 0], [199, 0], [199, 199], [0, 199]], float)
    colour = overlay.pick_colour(page, quad)
    assert colour in overlay.PALETTE
    lab = overlay._lab(colour)
    assert np.linalg.norm(lab - overlay._lab((235, 240, 245))) > 40
    assert np.linalg.norm(lab[1:] - overlay._lab((20, 20, 20))[1:]) > 20

"""Following the ruled lines (scanner.rectify): outer lines checked against the inner lines' spacing."""
from __future__ import annotations

import numpy as np

from scanner import rectify

CELL, N, PAD = 40, 9, 80


def _grid_under_a_title_bar(*, gap: int) -> tuple[np.ndarray, np.ndarray]:
    """A flat 9 x 9 grid (one-pixel inner lines, three-pixel border) with a dark title bar ``gap`` pixels above
    it, on white; and the grid's true outer corners (x, y)."""
    side = N * CELL
    img = np.full((side + 2 * PAD, side + 2 * PAD), 235, np.uint8)
    for i in range(N + 1):
        at = PAD + i * CELL
        w = 1 if i in (0, N) else 0
        img[at - w:at + w + 1, PAD - 1:PAD + side + 2] = 20
        img[PAD - 1:PAD + side + 2, at - w:at + w + 1] = 20
    img[PAD - gap - 30:PAD - gap, PAD - 20:PAD + side + 20] = 40  # the title bar
    quad = np.array([[PAD, PAD], [PAD + side, PAD], [PAD + side, PAD + side], [PAD, PAD + side]], np.float32)
    return img, quad


def test_outer_line_stays_on_the_grid_below_a_title_bar_with_thin_inner_lines():
    for gap in (4, 7, 10):
        img, quad = _grid_under_a_title_bar(gap=gap)
        mesh = rectify.fit_mesh(img, quad, N)
        assert np.abs(mesh.quad - quad).max() < 3.0, (gap, mesh.quad)
        # every crossing, not only the corners
        want = PAD + CELL * np.arange(N + 1)
        assert np.abs(mesh.points[..., 0] - want[None, :]).max() < 3.0
        assert np.abs(mesh.points[..., 1] - want[:, None]).max() < 3.0


def test_an_end_line_off_the_spacing_is_put_back_and_no_further_than_the_window():
    expected = 10.0 + 30.0 * np.arange(5)
    pos = np.repeat(expected[:, None], 3, axis=1)
    strength = np.full_like(pos, 0.35)  # thin lines: faint but followed
    pos[0] -= 8.0  # pulled onto something above the grid
    pos[4, 1] += 9.0  # and the other end off too at one station
    strength[[0, 4]] = 1.0
    fixed, _ = rectify._regular_ends(pos, strength, level=rectify.SPACING_CLEAR, lo=2.0, hi=150.0)
    assert np.abs(fixed[0] - expected[0]).max() < 0.5
    assert np.abs(fixed[4] - expected[4]).max() < 0.5
    # a spacing that would put the line outside the window it was sought in is cut at the window
    clipped, _ = rectify._regular_ends(pos, strength, level=rectify.SPACING_CLEAR, lo=9.0, hi=150.0)
    assert clipped[0].min() >= 9.0


def _plain_grid(n: int, cell: int, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """A flat n x n grid of one-pixel gray lines on white; and its true outer corners (x, y)."""
    side = n * cell
    img = np.full((side + 2 * pad, side + 2 * pad), 235, np.uint8)
    for i in range(n + 1):
        at = pad + i * cell
        img[at, pad:pad + side + 1] = 90
        img[pad:pad + side + 1, at] = 90
    quad = np.array([[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]], np.float32)
    return img, quad


def test_bold_discs_beside_the_lines_do_not_pull_them():
    import cv2

    n, cell, pad = 6, 60, 40
    img, quad = _plain_grid(n, cell, pad)
    # Takuzu's black discs, each nearly filling its cell, in a diagonal band
    for r, c in ((0, 1), (1, 2), (2, 3), (3, 4), (2, 0), (4, 1), (5, 5)):
        cv2.circle(img, (pad + c * cell + cell // 2, pad + r * cell + cell // 2), int(0.42 * cell), 40, -1)
    mesh = rectify.fit_mesh(img, quad, n)
    want = pad + cell * np.arange(n + 1)
    assert np.abs(mesh.points[..., 0] - want[None, :]).max() < 3.0
    assert np.abs(mesh.points[..., 1] - want[:, None]).max() < 3.0


def test_an_outer_line_a_little_off_is_put_back_on_a_small_grid_only():
    # an end line 0.12 cell off the spacing: over 3 % of a 4 x 4 grid's side (a text line under it), but on a
    # 9 x 9 grid only 1.3 % (curl may bend the border that much)
    for n, moved in ((4, True), (9, False)):
        expected = 10.0 + 30.0 * np.arange(n + 1)
        pos = np.repeat(expected[:, None], 3, axis=1)
        pos[n, 1] += 0.12 * 30.0
        strength = np.full_like(pos, 0.6)
        fixed, _ = rectify._regular_ends(pos, strength, slack=rectify.end_slack(n), lo=0.0, hi=400.0)
        assert (abs(fixed[n, 1] - expected[n]) < 0.5) == moved, n


def _profiles(lines: np.ndarray, *, side: int, strength: float) -> np.ndarray:
    """Profiles (K, side) across the lines of K strips: ``strength`` on a 3-pixel run at each line's position
    ``lines`` (L, K), nothing elsewhere."""
    out = np.zeros((lines.shape[1], side), np.float32)
    for k in range(lines.shape[1]):
        for at in np.round(lines[:, k]).astype(int):
            out[k, at - 1:at + 2] = strength
    return out


def test_an_inner_line_pulled_off_at_one_station_does_not_bow_the_border():
    # 8 x 8 cells of 32 px; inner line 7 is pulled 6 px onto a mark beside it at the last station (and only
    # faintly seen elsewhere): the spacing extrapolated from that station put the border 15 px inwards there
    n, cell, margin = 8, 32.0, 12.0
    expected, stations, lines = _even_lines(n, cell, margin)
    followed = lines.copy()
    followed[7, -1] -= 6.0
    side = int(expected[-1] + margin) + 1
    fine = _profiles(followed, side=side, strength=0.4)
    broad = _profiles(lines, side=side, strength=1.0)
    smoothed = rectify._follow_lines([fine, broad], expected, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[[0, n]] - lines[[0, n]]).max() < 1.0


def test_a_station_pulled_off_among_few_does_not_bend_the_line():
    # a line seen clearly at 4 of 6 stations, one of them on a disc's rim 4 px off: a quadratic through the
    # four follows it and throws the line's end 9 px away
    stations = 16.0 + 32.0 * np.arange(6)
    pos = np.full((1, 6), 200.0)
    pos[0, 1] -= 4.0
    strength = np.array([[0.4, 0.9, 0.5, 0.4, 0.5, 0.7]])
    smoothed = rectify._smooth_lines(pos, strength, np.array([200.0]), stations, level=rectify.CLEAR)
    assert np.abs(smoothed - 200.0).max() < 0.5


def test_a_wiggling_line_keeps_every_station():
    # thick and thin lines, curl: stations 1-3 px off a quadratic, two neighbours together, none alone
    x = 30.0 + 32.0 * np.arange(9)
    for wiggle in ([0.5, 0.4, -0.2, -0.8, -0.9, -1.0, 1.7, 1.6, -1.3], [-0.3, 0.2, 0.2, 0.2, 0.6, 1.1, -2.5, -2.2, 2.6]):
        assert not rectify._outliers(x, 100.0 + np.array(wiggle), tol=rectify.OUTLIER * 32.0).any()
    # ... while one station alone far off is left out
    alone = np.zeros(9)
    alone[8] = -5.7
    assert list(np.flatnonzero(rectify._outliers(x, 100.0 + alone, tol=rectify.OUTLIER * 32.0))) == [8]


def test_a_station_pulled_off_next_to_an_end_is_the_one_left_out():
    # six stations, the second pulled 4 px onto a shaded cell beside the border: the fit through the others
    # extrapolated to the first station lies farther off still, yet the second is the one pulled away
    stations = 26.0 + 32.0 * np.arange(6)
    pos = np.full(6, 199.5)
    pos[1] -= 3.9
    assert list(np.flatnonzero(rectify._outliers(stations, pos, tol=rectify.OUTLIER * 32.0))) == [1]
    smoothed = rectify._smooth_lines(pos[None], np.full((1, 6), 0.8), np.array([199.5]), stations,
                                     level=rectify.CLEAR)
    assert np.abs(smoothed - 199.5).max() < 0.5


def _even_lines(n: int, cell: float, margin: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An n x n grid of ``cell`` px cells ``margin`` px into its picture: the lines' positions (n + 1,), the
    stations (n,) (the cells' middles), and every line at every station (n + 1, n)."""
    true = margin + cell * np.arange(n + 1)
    stations = margin + cell * (np.arange(n) + 0.5)
    return true, stations, np.repeat(true[:, None], n, axis=1)


def _off_by_a_share(n: int, cell: float, margin: float, share: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True line positions (n + 1,), the positions a quad ``share`` of a cell too long at the far end expects
    them at, and the stations (n,)."""
    true, stations, _ = _even_lines(n, cell, margin)
    expected = margin + (cell + share * cell / n) * np.arange(n + 1)
    return true, expected, stations


def test_an_outer_line_hardly_seen_is_put_where_the_spacing_says_when_the_quad_is_off():
    # a 20 x 20 grid's last line lost along a title bar: the quad (from an outline) ends 0.4 cell beyond it,
    # and the line, seen nowhere, was put where the quad said
    n, cell, margin = 20, 24.0, 12.0
    true, expected, stations = _off_by_a_share(n, cell, margin, 0.4)
    side = int(expected[-1] + margin) + 1
    lines = np.repeat(true[:, None], n, axis=1)
    fine = _profiles(lines[:-1], side=side, strength=0.5)
    broad = _profiles(lines[:-1], side=side, strength=1.0)
    smoothed = rectify._follow_lines([fine, broad], expected, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[n] - true[n]).max() < 0.1 * cell  # (was 0.4 cell off)
    # a quad right where the line is not seen keeps it there
    fine = _profiles(lines[:-1], side=side, strength=0.5)
    smoothed = rectify._follow_lines([fine, broad], true, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[n] - true[n]).max() < 1.0


def test_an_outer_line_followed_off_the_spacing_at_most_stations_is_put_on_it_at_all():
    # the border followed onto print beside it 8 px off at five of six stations, 3 px (within the slack) at the
    # sixth: the line through the five put back and the one kept was bent 0.1 cell at that end
    n, cell, margin = 6, 32.0, 12.0
    true, stations, lines = _even_lines(n, cell, margin)
    pulled = lines.copy()
    pulled[0] -= 8.0
    pulled[0, -1] = true[0] - 3.0
    side = int(true[-1] + margin) + 1
    fine = _profiles(lines, side=side, strength=0.5)
    broad = _profiles(pulled, side=side, strength=1.0)
    smoothed = rectify._follow_lines([fine, broad], true, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[0] - true[0]).max() < 1.0


def test_an_outer_line_seen_clearly_at_two_stations_only_is_not_tilted_across_the_grid():
    # a 4 x 4 grid's bottom line seen clearly at the first two stations, the second pulled 3 px up by a disc
    # beside it (within the slack of the spacing), and only at the spacing's level at the other two (a shadow
    # over it): the straight line through the two clear ones ran 9 px up at the far end
    n, cell, margin = 4, 32.0, 7.0
    true, stations, lines = _even_lines(n, cell, margin)
    followed = lines.copy()
    followed[n, 1] -= 3.0
    side = int(true[-1] + margin) + 1
    fine = _profiles(lines, side=side, strength=0.4)
    broad = _profiles(followed, side=side, strength=1.0)
    broad[2:, int(true[n]) - 1:int(true[n]) + 2] = 0.35
    smoothed = rectify._follow_lines([fine, broad], true, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[n] - true[n]).max() < 0.1 * cell


def test_a_caption_line_under_the_border_does_not_pull_it():
    # a 6 x 6 grid of 32 px cells whose caption's text line starts 4 px under the bottom border and runs under
    # five of the six columns, its ink stronger than the thin border's (as in the photos): the weighted centre
    # of the window fell between the two (3-4 px low) and the line's fit threw its end a quarter cell down
    n, cell, margin = 6, 32.0, 10.0
    expected, stations, lines = _even_lines(n, cell, margin)
    side = int(expected[-1] + cell) + 1
    fine = _profiles(lines, side=side, strength=0.7)
    broad = fine.copy()
    border = int(round(expected[-1]))
    for k, (run, centre) in enumerate(zip([0.8, 0.85, 0.8, 0.8, 0.8, 0.0], [6, 7, 6, 7, 6, 6])):
        broad[k, border + centre - 2:border + centre + 3] = run
    smoothed = rectify._follow_lines([fine, broad], expected, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[n] - lines[n]).max() < 0.1 * cell


def test_one_inner_line_a_little_off_does_not_throw_the_spacing_past_the_border():
    # a 6 x 6 grid's last inner line 3.5 px off at a station (a shaded cell beside it): a quadratic in the line
    # index through the five inner lines put the border 6.3 px (1.8 times) off there, past the slack, and the
    # border followed where it is was moved; a straight line puts it 2.8 px off, within the slack
    n, cell = 6, 32.0
    expected = 10.0 + cell * np.arange(n + 1)
    pos = np.repeat(expected[:, None], 3, axis=1)
    pos[5, 1] += 3.5
    strength = np.full_like(pos, 0.6)
    fixed, _ = rectify._regular_ends(pos, strength, level=rectify.SPACING_CLEAR, slack=rectify.end_slack(n),
                                     lo=0.0, hi=300.0)
    assert np.abs(fixed[n] - expected[n]).max() < 0.5
    # a spacing that really bends (perspective) is still followed through a quadratic
    bent = 10.0 + cell * np.arange(n + 1) + 0.6 * np.arange(n + 1) ** 2
    want, _ = rectify._spacing_at(bent, np.full(n + 1, 0.6), n, level=rectify.SPACING_CLEAR)
    assert abs(want - bent[n]) < 0.1


def test_faint_inner_lines_found_in_place_say_the_spacing_of_a_small_grid():
    # a 4 x 4 grid of faint gray lines (under the spacing's level at most stations) between a caption's text
    # line 6 px above the top border at two stations and a colour bar 4 px under the bottom border, both far
    # stronger than the thin border: the spacing, taken through the caption-pulled top line where fewer than two
    # inner lines were clear, kept the bottom line on the bar (6.5 px, a fifth of a cell off) and the top line
    # on the caption at two stations
    n, cell, margin = 4, 32.0, 10.0
    true, stations, lines = _even_lines(n, cell, margin)
    side = int(true[-1] + margin) + 1
    fine = _profiles(lines, side=side, strength=0.35)
    for i, level in ((1, 0.05), (2, 0.28), (3, 0.25)):  # line 1 all but lost, 2 and 3 faint but in place
        fine[:, int(true[i]) - 1:int(true[i]) + 2] = level
    fine[:, int(true[1]) + 5] = 0.08  # noise elsewhere in line 1's window
    broad = fine.copy()
    top, bottom = int(true[0]), int(true[n])
    broad[1:3, top - 7:top - 4] = 0.6  # the caption's text line
    broad[:, bottom + 4:] = 1.0  # the bar, to the picture's edge
    smoothed = rectify._follow_lines([fine, broad], true, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[[0, n]] - lines[[0, n]]).max() < 0.1 * cell


def test_a_faint_line_counts_only_where_it_is_found_in_place():
    stations = 23.0 + 32.0 * np.arange(4)
    strength = np.full(4, 0.25)
    assert rectify._coherent(np.array([70.0, 70.2, 69.9, 70.1]), strength, stations, tol=0.64) is not None
    # the strongest pixel of a window with no line in it, wandering from station to station
    assert rectify._coherent(np.array([98.5, 98.7, 101.0, 100.0]), strength, stations, tol=0.64) is None
    # seen at two stations only
    assert rectify._coherent(np.array([70.0, 70.2, 69.9, 70.1]), np.array([0.25, 0.1, 0.1, 0.25]), stations,
                             tol=0.64) is None


def test_an_outer_line_fitted_through_a_few_stations_is_not_thrown_off_the_spacing_at_its_ends():
    # a 6 x 6 grid's left border seen clearly at three middle stations only, a shadow pulling them 3.5, 0 and
    # -4 px (each within the slack of the spacing) and faintly at the others: the straight line through the three
    # ran 12 px off at the first station and 8 px at the last
    n, cell, margin = 6, 32.0, 10.0
    true, stations, lines = _even_lines(n, cell, margin)
    side = int(true[-1] + margin) + 1
    fine = _profiles(lines, side=side, strength=0.4)
    followed = lines.copy()
    followed[0, 2:5] += np.array([3.5, 0.0, -4.0])
    broad = _profiles(followed, side=side, strength=0.2)
    for k, s in zip((2, 3, 4), (0.7, 1.0, 0.5)):
        broad[k, int(round(followed[0, k])) - 1:int(round(followed[0, k])) + 2] = s
    smoothed = rectify._follow_lines([fine, broad], true, stations, tol=0.3 * cell, level=rectify.CLEAR)
    assert np.abs(smoothed[0] - lines[0]).max() < 0.1 * cell


def test_the_shortcuts_of_the_line_fits_give_what_they_replace_to_the_bit():
    # fit_mesh's per-station work: runs counted for every station at once, a fit remembered, a polynomial's
    # value and slope at one point in plain floats
    rng = np.random.default_rng(3)
    for trial in range(200):
        profiles = rng.uniform(0, 1, (9, 120)).astype(np.float32) * (rng.uniform(0, 1, (9, 120)) > 0.6)
        profiles[trial % 9] = 0.0  # no ink at all in one window
        at, tol = float(rng.uniform(0, 120)), float(rng.uniform(2, 15))
        counts = rectify._run_counts(profiles, at, tol=tol)
        assert counts.tolist() == [len(rectify._runs(p, at, tol=tol)) for p in profiles]
        x = np.sort(rng.choice(np.arange(20.0), size=int(rng.integers(3, 12)), replace=False))
        y = 30 * x + rng.normal(0, 2, len(x))
        for degree in (1, 2, None):
            want = np.polyfit(x, y, rectify._degree(x, y) if degree is None else degree)
            got = rectify._polyfit(x, y, degree)
            assert got.tobytes() == want.tobytes() and rectify._polyfit(x.copy(), y.copy(), degree) is got
            end = float(rng.integers(0, 20))
            assert rectify.poly_value(got.tolist(), end) == float(np.polyval(want, end))
            slope = [c * float(len(want) - 1 - i) for i, c in enumerate(want.tolist()[:-1])]
            assert rectify.poly_value(slope, end) == float(np.polyval(np.polyder(want), end))


def test_a_mesh_corner_followed_a_cell_off_the_quad_gives_way_to_the_quads_even_lattice(monkeypatch):
    img, quad = _plain_grid(4, 60, 80)
    real = rectify._follow_lines
    assert np.abs(rectify.fit_mesh(img, quad, 4).quad - quad).max() < 3
    for off, strays in ((0.5, False), (1.2, True)):
        def pulled(strips, expected, stations, **kw):  # the first line followed ``off`` of a cell outwards
            got = real(strips, expected, stations, **kw)
            got[0] = got[0] - off * (expected[1] - expected[0])
            return got
        monkeypatch.setattr(rectify, "_follow_lines", pulled)
        corner_off = np.abs(rectify.fit_mesh(img, quad, 4).quad - quad).max() / 60
        assert corner_off < 0.05 if strays else corner_off > 0.3, (off, corner_off)

"""A fast exact 9x9 solver on digit-band bitmasks.

State: ``F[d * 3 + b]`` is a 27-bit int, the cells of band ``b`` (rows
3b..3b+2) where digit ``d + 1`` may still go; bit ``9 * rr + c`` is row
``3b + rr``, column ``c``. Everything fits a small int, and one table look-up
applies a whole rule to a band at once:

- *box-line*: in a band, digit d fills one cell per row and per box, so the
  band's 3x3 (row, box) presence pattern must hold a permutation; ``_COMPLEX``
  keeps the row-box segments that lie on one (this is hidden singles in boxes,
  pointing and claiming inside the band);
- *row single*: a row of a band with one position left fixes that cell, which
  leaves the other digits of the cell and the column in the other bands;
- *naked single*: a cell with one digit left fixes that digit in its row.

``propagate`` applies these to a fixpoint; ``search`` branches on a cell with
the fewest candidates (bivalue first) and counts up to two solutions,
iteratively, with plain list copies as the undo.
"""
from __future__ import annotations

from itertools import compress, permutations
from operator import ne

FULL = (1 << 27) - 1
_ROW = (511, 511 << 9, 511 << 18)


def _tables():
    shrink = [sum(1 << k for k in range(3) if x >> (3 * k) & 7) for x in range(512)]
    seg = [[7 << (9 * rr + 3 * k) for k in range(3)] for rr in range(3)]
    complex_ = []
    for s in range(512):
        keep = 0
        for perm in permutations(range(3)):
            if all(s >> (3 * rr + perm[rr]) & 1 for rr in range(3)):
                keep |= seg[0][perm[0]] | seg[1][perm[1]] | seg[2][perm[2]]
        complex_.append(keep)
    single = [1 if x and not x & (x - 1) else 0 for x in range(512)]
    rows_of = [sum(_ROW[rr] for rr in range(3) if m >> rr & 1) for m in range(8)]
    return (shrink, [v << 3 for v in shrink], [v << 6 for v in shrink], complex_,
            single, [v << 1 for v in single], [v << 2 for v in single], rows_of)


_SH0, _SH1, _SH2, _COMPLEX, _SG0, _SG1, _SG2, _ROWS_OF = _tables()
#: For index i = d*3+b: the indices of the other digits in band b, and of digit d in the other bands.
_OTHER_DIGITS = tuple(tuple(e * 3 + i % 3 for e in range(9) if e != i // 3) for i in range(27))
_OTHER_BANDS = tuple(tuple(i - i % 3 + c for c in range(3) if c != i % 3) for i in range(27))
_R27 = tuple(range(27))


def _stack_tables():
    """Tables for the box-column rule: a digit's (band, column) pattern in each stack must hold a permutation.

    ``_LB{b}[cols]`` spreads band b's 9-bit column presence to bits ``9s + 3b + cl``
    (stack s, local column cl); ``_PM{s}[x]`` keeps the cells of stack s's 9-bit
    pattern x that lie on a permutation, at the same bit positions (0: none).
    """
    perm9 = []
    for x in range(512):
        keep = 0
        for perm in permutations(range(3)):
            cells = [3 * b + perm[b] for b in range(3)]
            if all(x >> k & 1 for k in cells):
                keep |= sum(1 << k for k in cells)
        perm9.append(keep)
    lb = [[sum(((x >> 3 * s) & 7) << (9 * s + 3 * b) for s in range(3)) for x in range(512)] for b in range(3)]
    pm = [[sum(((perm9[x] >> 3 * b) & 7) << (9 * b + 3 * s) for b in range(3)) for x in range(512)]
          for s in range(3)]
    return lb + pm


_LB0, _LB1, _LB2, _PM0, _PM1, _PM2 = _stack_tables()
_BAND_INDICES = tuple(tuple(range(b, 27, 3)) for b in range(3))


def _row_keep(bit: int) -> int:
    """The mask that keeps ``bit`` and clears the rest of its row in the band."""
    if bit < 512:
        return ~511 | bit
    if bit < 1 << 18:
        return ~(511 << 9) | bit
    return ~(511 << 18) | bit


def initial_state(givens) -> list[int]:
    """``F`` for a 9x9 grid of givens (None for empty); clashing givens show up as a contradiction."""
    F = [FULL] * 27
    for r in range(9):
        b, rr = divmod(r, 3)
        for c in range(9):
            v = givens[r][c]
            if v is None:
                continue
            bit = 1 << (9 * rr + c)
            i = (v - 1) * 3 + b
            F[i] &= _row_keep(bit)
            for j in _OTHER_DIGITS[i]:
                F[j] &= ~bit
    return F


def propagate(F: list[int], P: list[int], SR: list[int], SC: list[int], Q: list[int]) -> bool:
    """Apply box-line, row singles and naked singles to a fixpoint; False on a contradiction.

    ``P`` holds each entry of ``F`` as last processed, ``SR[i]`` the rows of
    entry i already fixed (3 bits), ``SC[b]`` the cells of band b already fixed.
    All four are updated in place.
    """
    sh0, sh1, sh2, cx = _SH0, _SH1, _SH2, _COMPLEX
    sg0, sg1, sg2, rows_of = _SG0, _SG1, _SG2, _ROWS_OF
    od, ob = _OTHER_DIGITS, _OTHER_BANDS
    lb0, lb1, lb2, pm0, pm1, pm2 = _LB0, _LB1, _LB2, _PM0, _PM1, _PM2
    while True:
        while F != P:
            for i in compress(_R27, map(ne, F, P)):
                A = F[i]
                A &= cx[sh0[A & 511] | sh1[A >> 9 & 511] | sh2[A >> 18]]
                if not A:
                    return False
                F[i] = P[i] = A
                new = (sg0[A & 511] | sg1[A >> 9 & 511] | sg2[A >> 18]) & ~SR[i]
                if new:
                    SR[i] |= new
                    cells = A & rows_of[new]
                    SC[i % 3] |= cells
                    keep = ~cells
                    for j in od[i]:
                        F[j] &= keep
                    cols = (cells | cells >> 9 | cells >> 18) & 511
                    keep = ~(cols * 0x40201)
                    for j in ob[i]:
                        F[j] &= keep
        progress = False
        for b in (0, 1, 2):
            x0, x1, x2, x3, x4, x5, x6, x7, x8 = F[b::3]
            twos = x0 & x1
            ones = x0 | x1
            twos |= ones & x2
            ones |= x2
            twos |= ones & x3
            ones |= x3
            twos |= ones & x4
            ones |= x4
            twos |= ones & x5
            ones |= x5
            twos |= ones & x6
            ones |= x6
            twos |= ones & x7
            ones |= x7
            twos |= ones & x8
            ones |= x8
            if ones != FULL:
                return False
            singles = FULL & ~(twos | SC[b])
            if not singles:
                continue
            progress = True
            SC[b] |= singles
            while singles:
                bit = singles & -singles
                singles ^= bit
                for j in _BAND_INDICES[b]:
                    if F[j] & bit:
                        F[j] &= _row_keep(bit)
                        break
        if progress:
            continue
        for i in (0, 3, 6, 9, 12, 15, 18, 21, 24):
            A0 = F[i]
            A1 = F[i + 1]
            A2 = F[i + 2]
            if A0 == Q[i] and A1 == Q[i + 1] and A2 == Q[i + 2]:
                continue
            T = (lb0[(A0 | A0 >> 9 | A0 >> 18) & 511] | lb1[(A1 | A1 >> 9 | A1 >> 18) & 511]
                 | lb2[(A2 | A2 >> 9 | A2 >> 18) & 511])
            w0 = pm0[T & 511]
            w1 = pm1[T >> 9 & 511]
            w2 = pm2[T >> 18]
            if not (w0 and w1 and w2):
                return False
            W = w0 | w1 | w2
            Q[i] = A0 = A0 & (W & 511) * 0x40201
            Q[i + 1] = A1 = A1 & (W >> 9 & 511) * 0x40201
            Q[i + 2] = A2 = A2 & (W >> 18) * 0x40201
            if A0 != F[i] or A1 != F[i + 1] or A2 != F[i + 2]:
                F[i] = A0
                F[i + 1] = A1
                F[i + 2] = A2
                progress = True
        if not progress:
            return True


def _peer_masks() -> tuple[int, ...]:
    """For each cell 27b + p (band b, band bit p): its 20 peers as an 81-bit mask in the same numbering."""
    masks = []
    for b in range(3):
        for p in range(27):
            r, c = 3 * b + p // 9, p % 9
            m = 0
            for b2 in range(3):
                for p2 in range(27):
                    r2, c2 = 3 * b2 + p2 // 9, p2 % 9
                    if (r2, c2) != (r, c) and (r2 == r or c2 == c or (r2 // 3, c2 // 3) == (r // 3, c // 3)):
                        m |= 1 << (27 * b2 + p2)
            masks.append(m)
    return tuple(masks)


_PEERS81 = _peer_masks()


def _choose(F: list[int], SC: list[int]) -> tuple[int, int, list[int]]:
    """A branching cell ``(band, bit, digit indices)``.

    A bivalue cell with the most unsolved peers (its two branches reach
    furthest), else a cell with the fewest candidates.
    """
    open_cells = (FULL & ~SC[0]) | (FULL & ~SC[1]) << 27 | (FULL & ~SC[2]) << 54
    best = None
    score = -1
    for b in (0, 1, 2):
        x0, x1, x2, x3, x4, x5, x6, x7, x8 = F[b::3]
        ones = twos = threes = 0
        for x in (x0, x1, x2, x3, x4, x5, x6, x7, x8):
            threes |= twos & x
            twos |= ones & x
            ones |= x
        pair = twos & ~threes & ~SC[b]
        while pair:
            bit = pair & -pair
            pair ^= bit
            k = 27 * b + bit.bit_length() - 1
            s = (open_cells & _PEERS81[k]).bit_count()
            if s > score:
                score, best = s, (b, bit)
    if best is not None:
        b, bit = best
        return b, bit, [j for j in _BAND_INDICES[b] if F[j] & bit]
    fewest = None
    for b in (0, 1, 2):
        cells = FULL & ~SC[b]
        while cells:
            bit = cells & -cells
            cells ^= bit
            digits = [j for j in _BAND_INDICES[b] if F[j] & bit]
            if fewest is None or len(digits) < len(fewest[2]):
                fewest = (b, bit, digits)
    return fewest


def _pin(F: list[int], j: int, bit: int) -> None:
    """Put the digit of entry j at the cell ``bit`` of its band."""
    F[j] &= _row_keep(bit)
    for k in _OTHER_DIGITS[j]:
        F[k] &= ~bit


def grid_of(F: list[int]) -> list[list[int]]:
    """The 9x9 grid of a solved state."""
    grid = [[0] * 9 for _ in range(9)]
    for i, A in enumerate(F):
        d, b = divmod(i, 3)
        while A:
            bit = A & -A
            A ^= bit
            pos = bit.bit_length() - 1
            grid[3 * b + pos // 9][pos % 9] = d + 1
    return grid


def search(givens, limit: int = 2) -> tuple[list[list[list[int]]], int]:
    """Up to ``limit`` solutions of a 9x9 grid of givens, and the number of search nodes visited."""
    F = initial_state(givens)
    P = [0] * 27
    SR = [0] * 27
    SC = [0, 0, 0]
    Q = [0] * 27
    solutions = []
    stack = []
    nodes = 0
    while True:
        nodes += 1
        if propagate(F, P, SR, SC, Q):
            if SC[0] == FULL and SC[1] == FULL and SC[2] == FULL:
                solutions.append(grid_of(F))
                if len(solutions) >= limit:
                    break
            else:
                b, bit, digits = _choose(F, SC)
                for j in digits[:0:-1]:
                    stack.append((F[:], P[:], SR[:], SC[:], Q[:], j, bit))
                _pin(F, digits[0], bit)
                continue
        if not stack:
            break
        F, P, SR, SC, Q, j, bit = stack.pop()
        _pin(F, j, bit)
    return solutions, nodes

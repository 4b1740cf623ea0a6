"""Colours: the blue board, gold prices, white text, lamps that read from across a room."""

from __future__ import annotations

RGB = tuple[int, int, int]

BACKGROUND: RGB = (8, 16, 74)
HEADER: RGB = (14, 26, 104)
CELL: RGB = (22, 42, 150)
CELL_PLAYED: RGB = (12, 24, 92)
THEME_CELL: RGB = (16, 32, 120)
GOLD: RGB = (247, 196, 48)
WHITE: RGB = (244, 246, 255)
MUTED: RGB = (150, 160, 205)
DIM: RGB = (88, 96, 140)
RED: RGB = (236, 70, 70)
RED_DIM: RGB = (130, 56, 70)
GREEN: RGB = (80, 210, 120)
ORANGE: RGB = (250, 150, 40)

PODIUM: RGB = (20, 30, 84)
PODIUM_DIM: RGB = (14, 20, 56)
PODIUM_ACTIVE: RGB = (40, 58, 150)
LAMP_OFF: RGB = (44, 48, 70)
LAMP_ON: RGB = (255, 236, 140)
LAMP_FALSE_START: RGB = (255, 60, 60)
LAMP_DIM: RGB = (30, 32, 46)

BAR_WINDOW: RGB = (90, 200, 255)
BAR_ANSWER: RGB = ORANGE
BAR_TRACK: RGB = (18, 30, 100)

QR_DARK: RGB = (0, 0, 0)
QR_LIGHT: RGB = (255, 255, 255)

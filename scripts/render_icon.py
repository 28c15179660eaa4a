#!/usr/bin/env python3
"""Render the Marketplace icon, ``client-vscode/media/icon.png`` (128×128), from ``icon.svg``.

    .venv/bin/python scripts/render_icon.py

The Marketplace wants a PNG; this machine has no SVG renderer (no rsvg-convert, no
ImageMagick), so the icon's few shapes are drawn with matplotlib (a test dependency) from
the SVG's own elements: the tile (``rect`` with a two-stop linear gradient) and each
``path`` in the group, with the group's ``translate``/``scale`` and each path's stroke.
Only the path commands the icon uses are read (M, c, v, h, z, absolute or relative); any
other stops the script with the command's name. Run it after changing ``icon.svg``.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch, PathPatch
from matplotlib.path import Path as MplPath

MEDIA = Path(__file__).resolve().parents[1] / "client-vscode" / "media"
SVG = "{http://www.w3.org/2000/svg}"
SIZE = 128


def path_vertices(data: str) -> tuple[list[tuple[float, float]], list[int]]:
    """Vertices and matplotlib codes of an SVG path's ``d`` (M, c, v, h, z)."""
    tokens = re.findall(r"[A-Za-z]|-?\d*\.?\d+(?:e-?\d+)?", data)
    vertices: list[tuple[float, float]] = []
    codes: list[int] = []
    x = y = 0.0
    start = (0.0, 0.0)
    command = ""
    i = 0
    while i < len(tokens):
        if re.fullmatch(r"[A-Za-z]", tokens[i]):
            command = tokens[i]
            i += 1
            if command in "zZ":
                vertices.append(start)
                codes.append(MplPath.CLOSEPOLY)
                x, y = start
                continue
        numbers = tokens[i:]
        relative = command.islower()
        if command in "mM":
            dx, dy = float(numbers[0]), float(numbers[1])
            x, y = (x + dx, y + dy) if relative else (dx, dy)
            start = (x, y)
            vertices.append((x, y))
            codes.append(MplPath.MOVETO)
            i += 2
            command = "l" if relative else "L"
        elif command in "cC":
            points = [float(n) for n in numbers[:6]]
            base = (x, y) if relative else (0.0, 0.0)
            for k in range(0, 6, 2):
                vertices.append((base[0] + points[k], base[1] + points[k + 1]))
                codes.append(MplPath.CURVE4)
            x, y = vertices[-1]
            i += 6
        elif command in "vV":
            y = y + float(numbers[0]) if relative else float(numbers[0])
            vertices.append((x, y))
            codes.append(MplPath.LINETO)
            i += 1
        elif command in "hH":
            x = x + float(numbers[0]) if relative else float(numbers[0])
            vertices.append((x, y))
            codes.append(MplPath.LINETO)
            i += 1
        else:
            raise SystemExit(f"render_icon: path command {command!r} is not supported")
    return vertices, codes


def main() -> int:
    root = ET.parse(MEDIA / "icon.svg").getroot()
    figure = plt.figure(figsize=(1, 1), dpi=SIZE)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(0, SIZE)
    axes.set_ylim(SIZE, 0)  # SVG's y axis points down
    axes.axis("off")
    stops = [s.get("stop-color", "#000") for s in root.iter(f"{SVG}stop")]
    rect = root.find(f"{SVG}rect")
    assert rect is not None, "icon.svg has no tile"
    x, y, w, h, r = (float(rect.get(k, "0")) for k in ("x", "y", "width", "height", "rx"))
    tile = FancyBboxPatch(
        (x + r, y + r),
        w - 2 * r,
        h - 2 * r,
        boxstyle=f"round,pad={r}",
        linewidth=0,
        facecolor="none",
    )
    axes.add_patch(tile)
    ramp = np.linspace(0, 1, 256)
    gradient = (ramp[None, :] + ramp[:, None]) / 2  # top left to bottom right
    colours = matplotlib.colors.LinearSegmentedColormap.from_list("tile", stops)
    image = axes.imshow(gradient, cmap=colours, extent=(x, x + w, y + h, y))
    image.set_clip_path(tile)
    group = root.find(f"{SVG}g")
    assert group is not None, "icon.svg has no drawing"
    tx, ty, scale = (float(n) for n in re.findall(r"-?\d*\.?\d+", group.get("transform", "")))
    points_per_unit = 72 / SIZE  # one SVG unit is one pixel of the 128-pixel canvas
    for element in group.iter(f"{SVG}path"):
        vertices, codes = path_vertices(element.get("d", ""))
        moved = [(tx + scale * vx, ty + scale * vy) for vx, vy in vertices]
        width = float(element.get("stroke-width", group.get("stroke-width", "1")))
        patch = PathPatch(
            MplPath(moved, codes),
            fill=False,
            edgecolor=element.get("stroke", group.get("stroke", "#fff")),
            linewidth=width * scale * points_per_unit,
            capstyle="round",
            joinstyle="round",
        )
        axes.add_patch(patch)
    figure.savefig(MEDIA / "icon.png", dpi=SIZE, transparent=True)
    print(MEDIA / "icon.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Checks an HTML report as headless Chromium rendered it (tests/html_report_test.sh).

    html_check.py DOM.html CONSOLE.log SCREENSHOT.png EXPECT.json

EXPECT.json: {"timelines": [{"lanes": [...names...], "beliefs": N}, ...]} for each timeline in
page order. Fails on a console error, a page whose script did not run, a timeline whose lanes or
belief bars differ, or a blank screenshot.
"""
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body = {}
        self.timelines = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        elif tag == "svg" and "timeline" in cls:
            self.timelines.append({"lanes": [], "beliefs": 0, "events": 0, "titled": 0})
        elif self.timelines and tag == "g" and "lane" in cls:
            self.timelines[-1]["lanes"].append(a.get("data-lane"))
        elif self.timelines and tag == "rect" and "bar" in cls and "belief" in cls:
            self.timelines[-1]["beliefs"] += 1
        elif self.timelines and tag == "circle" and "event" in cls:
            self.timelines[-1]["events"] += 1

    def handle_endtag(self, tag):
        pass


def png_colours(path):
    """Distinct colours of an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for row in range(height):
        f = raw[row * (stride + 1)]
        line = bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if row % 4 == 0:
            for i in range(0, stride, bpp * 4):
                colours.add(bytes(line[i:i + 3]))
        prev = line
    return len(colours)


def main():
    dom, console, shot, expect_path = sys.argv[1:5]
    expect = json.load(open(expect_path))
    page = Page()
    page.feed(open(dom).read())
    bad = []
    if page.body.get("data-ready") != "1":
        bad.append("the page's script did not run (no data-ready on <body>)")
    if page.body.get("data-errors"):
        bad.append("script errors: " + page.body["data-errors"])
    for line in open(console, errors="replace"):
        if re.search(r"CONSOLE.*(Uncaught|Error|error)", line):
            bad.append("console: " + line.strip()[:300])
    if len(page.timelines) != len(expect["timelines"]):
        bad.append(f"{len(page.timelines)} timelines, expected {len(expect['timelines'])}")
    for i, (got, want) in enumerate(zip(page.timelines, expect["timelines"])):
        if got["lanes"] != want["lanes"]:
            bad.append(f"timeline {i}: lanes {got['lanes']}, expected {want['lanes']}")
        if got["beliefs"] != want["beliefs"]:
            bad.append(f"timeline {i}: {got['beliefs']} belief bars, expected {want['beliefs']}")
        if got["events"] == 0:
            bad.append(f"timeline {i}: no events")
    colours = png_colours(shot)
    if colours < 8:
        bad.append(f"the screenshot is blank ({colours} colours)")
    for b in bad:
        print("FAIL:", b)
    print(f"html_check: {len(page.timelines)} timelines, {colours} colours sampled, {len(bad)} problems")
    sys.exit(1 if bad else 0)


main()

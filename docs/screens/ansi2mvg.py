"""Render `tmux capture-pane -e -p` output to an ImageMagick MVG file, cell by cell."""
import re, sys, unicodedata
CW, CH, PAD = 8.5, 18, 10
BG, FG = '#1e1e2e', '#d0d0d0'
def xterm(n):
    base = ['#000000','#cd3131','#0dbc79','#e5e510','#2472c8','#bc3fbc','#11a8cd','#e5e5e5',
            '#666666','#f14c4c','#23d18b','#f5f543','#3b8eea','#d670d6','#29b8db','#ffffff']
    if n < 16: return base[n]
    if n < 232:
        n -= 16; v = [0,95,135,175,215,255]
        return '#%02x%02x%02x' % (v[n//36], v[n//6%6], v[n%6])
    g = 8 + 10*(n-232); return '#%02x%02x%02x' % (g,g,g)
def width(c):
    if unicodedata.category(c) in ('Mn','Me','Cf') or 0xfe00 <= ord(c) <= 0xfe0f: return 0
    return 2 if unicodedata.east_asian_width(c) in 'WF' else 1
lines = open(sys.argv[1], encoding='utf-8').read().rstrip('\n').split('\n')
cols = int(sys.argv[2]); rows = len(lines)
out = ['viewbox 0 0 %d %d' % (cols*CW+2*PAD, rows*CH+2*PAD), 'fill "%s"' % BG,
       'rectangle 0,0 %d,%d' % (cols*CW+2*PAD, rows*CH+2*PAD),
       'font "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"', 'font-size 14']
tok = re.compile(r'\x1b\[([0-9;]*)m|([^\x1b])')
for y, line in enumerate(lines):
    fg, bg, rev, bold, col = FG, None, False, False, 0
    for m in tok.finditer(line):
        if m.group(1) is not None:
            ps = [int(p) if p else 0 for p in m.group(1).split(';')] or [0]
            i = 0
            while i < len(ps):
                p = ps[i]
                if p == 0: fg, bg, rev, bold = FG, None, False, False
                elif p == 1: bold = True
                elif p == 7: rev = True
                elif p == 27: rev = False
                elif p == 39: fg = FG
                elif p == 49: bg = None
                elif 30 <= p <= 37: fg = xterm(p-30)
                elif 90 <= p <= 97: fg = xterm(p-90+8)
                elif 40 <= p <= 47: bg = xterm(p-40)
                elif p in (38, 48) and i+2 < len(ps) and ps[i+1] == 5:
                    if p == 38: fg = xterm(ps[i+2])
                    else: bg = xterm(ps[i+2])
                    i += 2
                i += 1
            continue
        c = m.group(2); w = width(c)
        if w == 0: continue
        f, b = (bg or BG, fg) if rev else (fg, bg)
        x, yy = PAD + col*CW, PAD + y*CH
        if b: out.append('fill "%s" rectangle %.1f,%d %.1f,%d' % (b, x, yy, x+w*CW, yy+CH))
        if c != ' ':
            esc = c.replace('\\', '\\\\').replace('"', '\\"')
            out.append('fill "%s" text %.1f,%d "%s"' % (f, x, yy+14, esc))
        col += w
open(sys.argv[3], 'w', encoding='utf-8').write('\n'.join(out) + '\n')

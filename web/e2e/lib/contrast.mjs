// WCAG 2 contrast of visible text against the background it is drawn on (the nearest ancestor with an
// opaque background colour): at least 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold).
// Disabled controls and text that is withdrawn on purpose (struck through) are exempt, as WCAG exempts
// inactive parts of the interface.
export async function lowContrastText(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
    };
    const lum = ({ r, g, b }) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const blend = (top, under) => ({
      r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
      b: top.b * top.a + under.b * (1 - top.a), a: 1,
    });
    const backgroundOf = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const s = getComputedStyle(e);
        if (s.backgroundImage && s.backgroundImage !== 'none') return null;  // cannot judge a gradient or image
        const c = parse(s.backgroundColor);
        if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
      }
      let bg = { r: 255, g: 255, b: 255, a: 1 };
      if (layers.length && layers[layers.length - 1].a < 1) {
        const dark = matchMedia('(prefers-color-scheme: dark)').matches;
        bg = dark ? { r: 0, g: 0, b: 0, a: 1 } : bg;
      }
      for (let i = layers.length - 1; i >= 0; i--) bg = blend(layers[i], bg);
      return bg;
    };
    const out = [];
    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || seen.has(el) || !n.textContent.trim()) continue;
      seen.add(el);
      if (el.closest('option, script, style, noscript, [aria-hidden="true"]')) continue;
      if (el.closest(':disabled, [aria-disabled="true"], [data-state="retracted"], del, s')) continue;
      const rects = el.getClientRects();
      if (!rects.length) continue;
      const s = getComputedStyle(el);
      if (s.visibility !== 'visible' || Number(s.opacity) === 0) continue;
      if (/line-through/.test(s.textDecorationLine)) continue;
      const fg = parse(s.color);
      const bg = backgroundOf(el);
      if (!fg || !bg) continue;
      const color = fg.a < 1 ? blend(fg, bg) : fg;
      const [hi, lo] = [lum(color), lum(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = parseFloat(s.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
      const need = large ? 3 : 4.5;
      if (ratio < need - 0.01) {
        out.push(`${ratio.toFixed(2)}:1 < ${need}:1 for "${n.textContent.trim().slice(0, 40)}" (${s.color} on rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)}))`);
      }
    }
    return out;
  });
}

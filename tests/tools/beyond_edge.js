() => {
  // Elements a reader sees whose right edge lies beyond the viewport's, unless they sit inside a box
  // that scrolls sideways (overflow-x auto/scroll, wider content) and says so above it: its element
  // marked data-tg-scrolls with a ::before line. Returns [count, up to 12 samples].
  const W = document.documentElement.clientWidth, SLACK = 1;
  const scrollsWithHintAbove = (el) => {
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && a.scrollWidth > a.clientWidth + 1) {
        if (a.getBoundingClientRect().right > W + SLACK) return false;
        const holder = a.closest('[data-tg-scrolls]');
        if (!holder) return false;
        const before = getComputedStyle(holder, '::before').content;
        return !!before && before !== 'none' && before !== 'normal' && before !== '""';
      }
    }
    return false;
  };
  // Screen-reader text (a slider's range input, KaTeX's MathML) sits in a 1-px box that clips it.
  const visuallyHidden = (el) => {
    for (let a = el; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflow === 'hidden' && a.getBoundingClientRect().width <= 1) return true;
    }
    return false;
  };
  // An SVG drawing clips what it holds to its own box (KaTeX draws long strokes and cuts them so).
  const clippedBySvg = (el) => {
    const svg = el.parentElement && el.parentElement.closest('svg');
    return !!svg && svg.getBoundingClientRect().right <= W + SLACK;
  };
  const seen = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[data-testid=stSidebar][aria-expanded=false], script, style, noscript')) continue;
    const rects = el.getClientRects();
    if (!rects.length) continue;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none' || s.opacity === '0') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= W + SLACK) continue;
    if (clippedBySvg(el) || visuallyHidden(el) || scrollsWithHintAbove(el)) continue;
    seen.push(el);
  }
  const name = (el) => (el.getAttribute('data-testid') || el.tagName.toLowerCase()) +
    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '') +
    ' → ' + Math.round(el.getBoundingClientRect().right) + ' ' + (el.innerText || el.textContent || '').slice(0, 30).replace(/\s+/g, ' ');
  return [seen.length, seen.slice(0, 12).map(name)];
}

/** Calls `draw` again when the window's width changes by more than a little (the charts' drawing width follows it). */
export function redrawOnResize(draw: () => void): void {
  let width = window.innerWidth;
  let timer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (Math.abs(window.innerWidth - width) < 24) return;
      width = window.innerWidth;
      draw();
    }, 150);
  });
}

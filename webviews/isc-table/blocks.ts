/** Rows per block: about a screen, so a first frame lays out one or two blocks. */
export const BLOCK_ROWS = 20;
/** A collapsed row's height in pixels, for the space a block keeps before it is laid out. */
const ROW_HEIGHT = 30;

/**
 * Puts the table's rows, in order, into blocks of BLOCK_ROWS. A block off screen is skipped
 * by layout, style and paint as a whole (`content-visibility: auto` in isc-table.css) — one
 * box instead of twenty — while its rows stay in the document for find, keyboard
 * navigation and screen readers (a block is `role="none"`: rows belong to the row group).
 * Rows not given are detached; the blocks themselves are reused.
 */
export function placeRows(body: HTMLElement, rows: readonly HTMLElement[]): void {
  const count = Math.ceil(rows.length / BLOCK_ROWS);
  const blocks = Array.from(body.children) as HTMLElement[];
  // New blocks are filled before they join the document: one insertion, not one per block.
  const added = document.createDocumentFragment();
  for (let i = 0; i < count; i++) {
    let block = blocks[i];
    if (!block) {
      block = document.createElement('div');
      block.className = 'block';
      block.setAttribute('role', 'none');
      added.appendChild(block);
    }
    const part = rows.slice(i * BLOCK_ROWS, (i + 1) * BLOCK_ROWS);
    // A block that keeps its rows is left alone: moving a row would take its focus away.
    if (part.length === block.children.length && part.every((row, j) => block.children[j] === row)) continue;
    block.style.containIntrinsicSize = `auto ${part.length * ROW_HEIGHT}px`;
    block.replaceChildren(...part);
  }
  for (const extra of blocks.slice(count)) extra.remove();
  body.appendChild(added);
}

/**
 * Scrolls a focused row into view until it stays there. The browser scrolled to it with only
 * estimated heights for the rows around it (they are skipped until near the screen); the
 * frames after lay out the rows that came near, which can push it out again. So it is put
 * back each frame until it has kept its place for a few frames (or lost the focus).
 */
export function keepInView(row: HTMLElement, frames = 30, still = 0): void {
  requestAnimationFrame(() => {
    if (document.activeElement !== row || frames === 0) return;
    const before = row.getBoundingClientRect().top;
    row.scrollIntoView({ block: 'nearest' });
    const moved = row.getBoundingClientRect().top !== before;
    const steady = moved ? 0 : still + 1;
    if (steady < 3) keepInView(row, frames - 1, steady);
  });
}

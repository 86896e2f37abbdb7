// QR mask patterns and the standard penalty score the encoder uses to pick one of them.

/** True where mask pattern `mask` inverts the module at column x, row y. */
export function maskHits(mask: number, x: number, y: number): boolean {
  switch (mask) {
    case 0: return (x + y) % 2 === 0;
    case 1: return y % 2 === 0;
    case 2: return x % 3 === 0;
    case 3: return (x + y) % 3 === 0;
    case 4: return (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0;
    case 5: return ((x * y) % 2) + ((x * y) % 3) === 0;
    case 6: return (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
    default: return (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
  }
}

/** The standard mask penalty: long runs, 2x2 blocks, finder look-alikes, dark/light balance. */
export function penalty(size: number, dark: Uint8Array): number {
  let score = 0;
  const at = (x: number, y: number) => dark[y * size + x]!;
  for (const line of [(i: number, j: number) => at(j, i), (i: number, j: number) => at(i, j)]) {
    for (let i = 0; i < size; i++) {
      const cells = Array.from({ length: size }, (_, j) => line(i, j));
      let run = 1;
      for (let j = 1; j <= size; j++) {
        if (j < size && cells[j] === cells[j - 1]) run++;
        else {
          if (run >= 5) score += 3 + (run - 5);
          run = 1;
        }
      }
      score += 40 * finderLookAlikes(cells);
    }
  }
  for (let y = 0; y < size - 1; y++) {
    for (let x = 0; x < size - 1; x++) {
      const c = at(x, y);
      if (c === at(x + 1, y) && c === at(x, y + 1) && c === at(x + 1, y + 1)) score += 3;
    }
  }
  const darkCount = dark.reduce((sum, d) => sum + d, 0);
  score += 10 * Math.floor(Math.abs(darkCount * 20 - size * size * 10) / (size * size));
  return score;
}

/** Count of 1:1:3:1:1 patterns with four light modules on one side (outside counts as light). */
function finderLookAlikes(cells: number[]): number {
  const core = [1, 0, 1, 1, 1, 0, 1];
  const cell = (i: number) => (i < 0 || i >= cells.length ? 0 : cells[i]!);
  let count = 0;
  for (let start = 0; start + 7 <= cells.length; start++) {
    if (!core.every((v, k) => cell(start + k) === v)) continue;
    const lightBefore = [1, 2, 3, 4].every((k) => cell(start - k) === 0);
    const lightAfter = [0, 1, 2, 3].every((k) => cell(start + 7 + k) === 0);
    if (lightBefore) count++;
    if (lightAfter) count++;
  }
  return count;
}

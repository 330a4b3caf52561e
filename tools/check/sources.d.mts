/** Every .ts/.mts/.tsx source file under dir (no .d.ts, node_modules or gen/), sorted. */
export function sources(dir: string): string[];

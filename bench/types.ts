/** The shape every `bench/*.bench.ts` returns; `bench/run.ts` renders them into one report. */
export type BenchSection = {
  title: string;
  rows: Array<{
    name: string;
    value: number;
    unit: string;
    baseline?: number;
    ratio?: number;
    target?: string;
    pass?: boolean;
  }>;
  notes?: string[];
};

/** Data files are bundled as text by esbuild (`loader: { '.yaml': 'text' }`). */
declare module '*.yaml' {
  const text: string;
  export default text;
}

/** A data file parsed at build time (build/yaml-data.mjs): its value, which the unit tests check against its schema. */
declare module '*.yaml?data' {
  const value: unknown;
  export default value;
}

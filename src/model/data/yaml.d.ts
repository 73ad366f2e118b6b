/** Data files are bundled as text by esbuild (`loader: { '.yaml': 'text' }`). */
declare module '*.yaml' {
  const text: string;
  export default text;
}

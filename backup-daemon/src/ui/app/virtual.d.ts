// Side-effect imports bundled by esbuild (`ui/build/buildUi.ts`); declared so tsc accepts them.
declare module 'virtual:ansi-palette.css'
declare module '*.css'

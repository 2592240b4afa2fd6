/** Types for the `lz4js` package (LZ4 frame format, pure JavaScript; it ships none). */
declare module "lz4js" {
  const lz4: {
    compress(src: Uint8Array, maxSize?: number): Uint8Array;
    decompress(src: Uint8Array, maxSize?: number): Uint8Array;
  };
  export = lz4;
}

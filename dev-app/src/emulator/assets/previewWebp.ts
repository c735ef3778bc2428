/**
 * @module emulator/assets/previewWebp
 * A real 64×36 lossy WebP (80 bytes, the same flat blue frame), served as every video's `preview.webp`.
 */
export const previewWebp = Buffer.from('UklGRkgAAABXRUJQVlA4IDwAAACQAwCdASpAACQAPtForlIoJiQioqgBABoJZwB2AAAqNMY4fBmAAP7paR/9Q4pD0P/8Qu9haRdeEYQAAAA=', 'base64')

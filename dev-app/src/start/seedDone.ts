/** The last line `seed.ts` prints; `main.ts` treats a seed run without it as failed. */
export const seedDoneLine = 'seed: database ready'

/**
 * The memory of spent receipts (`ExpiringSet` in hooks/singleUseReceipts): an entry lives until its
 * expiry and no longer, and the set never holds more than its bound (the oldest dropped first).
 */
import { expect } from 'chai'

import { ExpiringSet } from '../src/hooks/singleUseReceipts.js'

describe('used-receipt memory (ExpiringSet)', () => {
  it('forgets an entry when it expires', () => {
    let now = 1_000
    const set = new ExpiringSet(10, () => now)
    set.add('a', 6 * 3600_000)
    now += 6 * 3600_000 - 1
    expect(set.has('a')).to.equal(true)
    now += 1
    expect(set.has('a')).to.equal(false)
    expect(set.size).to.equal(0)
  })

  it('stays within its bound, dropping the oldest first', () => {
    let now = 0
    const set = new ExpiringSet(100, () => now)
    for (let i = 0; i < 50; i++) set.add(`short-${i}`, 10)
    now = 5
    for (let i = 0; i < 100; i++) set.add(`long-${i}`, 1000)
    expect(set.size).to.be.at.most(100)
    now = 20
    set.add('one-more', 1000)
    expect(set.size).to.be.at.most(100)
    expect(set.has('short-0')).to.equal(false)
    expect(set.has('one-more')).to.equal(true)
    expect(set.has('long-99')).to.equal(true)
    for (let i = 0; i < 10_000; i++) set.add(`flood-${i}`, 1000)
    expect(set.size).to.equal(100)
    expect(set.has('flood-9999')).to.equal(true)
    expect(set.has('flood-0')).to.equal(false)
  })
})

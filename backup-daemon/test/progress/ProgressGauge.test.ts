import { expect } from 'chai'
import { fileWeight, ProgressGauge } from '../../src/runs/ProgressGauge.js'
import { ProgressMeter } from '../../src/tasks/ProgressMeter.js'

describe('progress: ProgressGauge (the calculation backups and tasks share)', () => {
  it('smooths the rate over samples; percent floored to 0.1 and held at 99 while reading; ETA rounded up', () => {
    let clock = 0
    let bytes = 0
    const gauge = new ProgressGauge({ startedAt: new Date(0), now: () => clock, bytesRead: () => bytes })
    expect(gauge.estimate(0, undefined, true)).to.deep.equal({})
    expect(gauge.estimate(0, 0, true)).to.deep.equal({})
    // No rate yet: a percent but no ETA.
    expect(gauge.estimate(0, 3000, true)).to.deep.equal({ totalBytes: 3000, percent: 0 })
    bytes = 1000
    clock = 1000
    gauge.sample()
    expect(gauge.bytesPerSecond).to.equal(1000)
    // 1000 / 3000 = 33.33..% floored to 33.3; 2000 bytes left at 1000/s.
    expect(gauge.estimate(1000, 3000, true)).to.deep.equal({ totalBytes: 3000, percent: 33.3, etaSeconds: 2 })
    bytes = 1500
    clock = 2000
    gauge.sample()
    // 1000 + 0.3 * (500 - 1000)
    expect(gauge.bytesPerSecond).to.equal(850)
    // 1500 left at 850/s = 1.76 s, rounded up.
    expect(gauge.estimate(1500, 3000, true)).to.include({ percent: 50, etaSeconds: 2 })
    expect(gauge.estimate(2999, 3000, true).percent).to.equal(99)
    // Past an estimated total: still reading, time left unknown.
    expect(gauge.estimate(5000, 3000, true)).to.deep.equal({ totalBytes: 3000, percent: 99 })
    expect(gauge.estimate(3000, 3000, true)).to.deep.equal({ totalBytes: 3000, percent: 99 })
    expect(gauge.estimate(1500, 3000, false)).to.deep.equal({ totalBytes: 3000, percent: 100 })
    // A sample at the same instant changes nothing.
    bytes = 9000
    gauge.sample()
    expect(gauge.bytesPerSecond).to.equal(850)
  })

  it('a stalled read: the rate falls to 0 and the ETA goes, never a denormal rate and an infinite ETA (shown "about 0.0s left", issue 38)', () => {
    let clock = 0
    let bytes = 0
    const gauge = new ProgressGauge({ startedAt: new Date(0), now: () => clock, bytesRead: () => bytes })
    bytes = 1_000_000
    clock = 1000
    gauge.sample()
    expect(gauge.estimate(bytes, 4_000_000, true)).to.include({ etaSeconds: 3 })
    // The read stops: a sample a second for ten minutes.
    for (let i = 0; i < 600; i++) {
      clock += 1000
      gauge.sample()
      const { etaSeconds } = gauge.estimate(bytes, 4_000_000, true)
      if (etaSeconds !== undefined) expect(Number.isFinite(etaSeconds) && etaSeconds <= 365 * 86_400, `after ${i + 1} s: ${etaSeconds}`).to.equal(true)
    }
    expect(gauge.bytesPerSecond).to.equal(0)
    expect(gauge.estimate(bytes, 4_000_000, true)).to.deep.equal({ totalBytes: 4_000_000, percent: 25 })
  })

  it('a task meter uses the same cap and rounding: 99 while running, 100 on success, the share read and no ETA otherwise', () => {
    const running = new ProgressMeter({ kind: 'restore', startedAt: new Date(), totalBytes: 3000, intervalMs: 60_000 })
    running.addBytes(2999)
    running.stop(false)
    expect(running.progress).to.include({ kind: 'restore', percent: 99, totalBytes: 3000, bytesRead: 2999 }).and.not.have.property('etaSeconds')
    const third = new ProgressMeter({ kind: 'verify', startedAt: new Date(), totalBytes: 3000, intervalMs: 60_000 })
    third.addBytes(1000)
    expect(third.stop(false).percent).to.equal(33.3)
    const done = new ProgressMeter({ kind: 'verify', startedAt: new Date(), totalBytes: 3000, intervalMs: 60_000 })
    done.addBytes(2000)
    expect(done.stop(true)).to.include({ percent: 100, bytesRead: 2000 }).and.not.have.property('etaSeconds')
  })

  it('counts files as work where their number is known: a drill of small files moves while it reads back files, its ETA from both (issue 42)', () => {
    let clock = 0
    let bytes = 0
    let files = 0
    const gauge = new ProgressGauge({ startedAt: new Date(0), now: () => clock, bytesRead: () => bytes, filesRead: () => files })
    // 1000 files of 100 bytes, each counted twice (unpacked, then read back): all bytes are read after the first half.
    const total = { bytes: 100_000, files: 2000 }
    bytes = 100_000
    files = 1000
    clock = 10_000
    gauge.sample()
    const half = gauge.estimate(bytes, total.bytes, true, { read: files, total: total.files })
    // Bytes alone said 99%: the work done is the bytes and 1000 of 2000 files.
    expect(gauge.estimate(bytes, total.bytes, true).percent).to.equal(99)
    const expected = (100_000 + 1000 * fileWeight) / (100_000 + 2000 * fileWeight)
    expect(half.percent).to.equal(Math.floor(expected * 1000) / 10)
    // Reading back: no bytes from the storage, 100 files a second, so the ETA is the 1000 files left: 10 s.
    files = 1100
    clock = 11_000
    gauge.sample()
    for (let i = 0; i < 20; i++) {
      files += 100
      clock += 1000
      gauge.sample()
    }
    files = 1000
    expect(gauge.estimate(bytes, total.bytes, true, { read: 1000, total: total.files })).to.include({ etaSeconds: 10 })
    // The reported rate stays in bytes: nothing read from the storage meanwhile, so it has decayed from 10 KB/s.
    expect(gauge.bytesPerSecond).to.be.below(10)
  })

  it('a task meter with a file total weighs its files; dropped, it goes by bytes again', () => {
    const meter = new ProgressMeter({ kind: 'drill', startedAt: new Date(), totalBytes: 1000, totalFiles: 10, intervalMs: 60_000 })
    meter.addBytes(1000)
    for (let i = 0; i < 5; i++) meter.file(`site/f${i}`)
    const weighed = meter.stop(false)
    expect(weighed.percent).to.be.within(45, 55)
    const plain = new ProgressMeter({ kind: 'restore', startedAt: new Date(), totalBytes: 1000, totalFiles: 10, intervalMs: 60_000 })
    plain.totalFiles = undefined
    plain.addBytes(500)
    expect(plain.stop(false).percent).to.equal(50)
  })
})

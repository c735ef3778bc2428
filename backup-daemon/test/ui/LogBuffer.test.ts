import { expect } from 'chai'
import { LogBuffer } from '../../src/ui/app/log/LogBuffer.js'

const ESC = '\u001b'

describe('ui/app/log/LogBuffer', () => {
  it('keeps at most its capacity, dropping the oldest lines', () => {
    const buffer = new LogBuffer(3)
    buffer.push(['1', '2'])
    buffer.push(['3', '4', '5'])
    expect(buffer.lines).to.deep.equal(['3', '4', '5'])
    expect(buffer.length).to.equal(3)
  })

  it('searches case-insensitively, ignoring ANSI codes, with indexes that follow trimming', () => {
    const buffer = new LogBuffer(4)
    buffer.push([`${ESC}[31mERROR${ESC}[0m disk full`, 'ok', `${ESC}[1merr${ESC}[0mor again`, 'fine', 'Error three'])
    expect(buffer.search('error')).to.deep.equal([1, 3])
    expect(buffer.search('31m')).to.deep.equal([])
    expect(buffer.search('')).to.deep.equal([])
  })

  it('gives the log as plain text and clears', () => {
    const buffer = new LogBuffer()
    buffer.push([`${ESC}[32mINFO${ESC}[0m a`, 'b'])
    expect(buffer.text()).to.equal('INFO a\nb')
    buffer.clear()
    expect(buffer.length).to.equal(0)
    expect(buffer.search('a')).to.deep.equal([])
  })
})

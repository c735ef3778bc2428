import { expect } from 'chai'
import { mergeTail } from '../../src/ui/lib/mergeTail.js'

describe('ui/lib/mergeTail', () => {
  it('appends live lines that are not in the tail', () => {
    expect(mergeTail(['a', 'b'], ['c', 'd'])).to.deep.equal(['a', 'b', 'c', 'd'])
  })
  it('drops live lines already at the end of the tail', () => {
    expect(mergeTail(['a', 'b', 'c'], ['b', 'c', 'd'])).to.deep.equal(['a', 'b', 'c', 'd'])
    expect(mergeTail(['a', 'b', 'c'], ['c'])).to.deep.equal(['a', 'b', 'c'])
    expect(mergeTail(['a', 'b'], ['a', 'b'])).to.deep.equal(['a', 'b'])
  })
  it('takes the longest overlap', () => {
    expect(mergeTail(['x', 'x', 'x'], ['x', 'x', 'y'])).to.deep.equal(['x', 'x', 'x', 'y'])
  })
  it('handles empty sides', () => {
    expect(mergeTail([], ['a'])).to.deep.equal(['a'])
    expect(mergeTail(['a'], [])).to.deep.equal(['a'])
  })
})

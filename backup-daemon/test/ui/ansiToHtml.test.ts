import { expect } from 'chai'
import { ansiPaletteCss, ansiToHtml, parseAnsi, stripAnsi } from '../../src/ui/lib/ansiToHtml.js'

const ESC = '\u001b'

describe('ui/lib/ansiToHtml', () => {
  it('escapes HTML in plain lines', () => {
    expect(ansiToHtml(`<img src=x onerror="alert('1')"> & co`)).to.equal('&#60;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&#62; &#38; co')
  })

  it('escapes HTML inside coloured runs', () => {
    expect(ansiToHtml(`${ESC}[31m<script>${ESC}[0m`)).to.equal('<span class="ansi-fg-1">&#60;script&#62;</span>')
  })

  it('renders basic, bright and background colours and resets', () => {
    expect(ansiToHtml(`a${ESC}[32mgreen${ESC}[0m b`)).to.equal('a<span class="ansi-fg-2">green</span> b')
    expect(ansiToHtml(`${ESC}[91;44mx`)).to.equal('<span class="ansi-fg-9 ansi-bg-4">x</span>')
    expect(ansiToHtml(`${ESC}[1;33mwarn${ESC}[39m still bold${ESC}[22m plain`)).to.equal(
      '<span class="ansi-fg-3 ansi-bold">warn</span><span class="ansi-bold"> still bold</span> plain',
    )
  })

  it('treats ESC[m as a reset and keeps styles across segments', () => {
    const segments = parseAnsi(`${ESC}[4munder${ESC}[3mboth${ESC}[mnone`)
    expect(segments.map((s) => [s.text, s.style.underline, s.style.italic])).to.deep.equal([
      ['under', true, false],
      ['both', true, true],
      ['none', false, false],
    ])
  })

  it('maps 256 and true colours to palette classes', () => {
    expect(ansiToHtml(`${ESC}[38;5;208mo`)).to.equal('<span class="ansi-fg-208">o</span>')
    expect(ansiToHtml(`${ESC}[48;2;255;0;0mr`)).to.equal('<span class="ansi-bg-196">r</span>')
    expect(ansiToHtml(`${ESC}[38;2;128;128;128mg`)).to.equal('<span class="ansi-fg-244">g</span>')
  })

  it('handles inverse with default colours', () => {
    expect(ansiToHtml(`${ESC}[7mi`)).to.equal('<span class="ansi-inverse-fg ansi-inverse-bg">i</span>')
    expect(ansiToHtml(`${ESC}[31;7mi`)).to.equal('<span class="ansi-inverse-fg ansi-bg-1">i</span>')
  })

  it('drops non-SGR sequences and strips for copy and search', () => {
    const line = `${ESC}[2K${ESC}]0;title\u0007${ESC}[36mdone${ESC}[0m`
    expect(ansiToHtml(line)).to.equal('<span class="ansi-fg-6">done</span>')
    expect(stripAnsi(line)).to.equal('done')
    expect(stripAnsi('plain')).to.equal('plain')
  })

  it('generates a palette rule for every extended colour', () => {
    const css = ansiPaletteCss()
    expect(css).to.contain('.ansi-fg-16{color:#000000}')
    expect(css).to.contain('.ansi-bg-231{background-color:#ffffff}')
    expect(css).to.contain('.ansi-fg-255{color:#eeeeee}')
    expect(css.split('\n').filter(Boolean)).to.have.length(240)
  })
})

// Drives `tengen gtp` the way Sabaki does, with Sabaki's own GTP library (@sabaki/gtp):
// pipelined start-up, state sync through ControllerStateTracker (handicap, moves, a switch to
// another line by undo), genmove (or the genmove_analyze Sabaki prefers when listed), then the
// analysis command Sabaki picks, stopped by `protocol_version`, its lines parsed with Sabaki's
// rules (split on `info `, key/value pairs, pv to the end; floats for kata-, integers for lz-).
// Usage: node drive.js TENGEN_BINARY. Exits non-zero on the first failed check.
const {Controller, ControllerStateTracker} = require('@sabaki/gtp')
const assert = require('assert')

const [binary] = process.argv.slice(2)
assert(binary, 'usage: node drive.js TENGEN_BINARY')

// Sabaki's parser (src/modules/analysis.js, as GTP-NOTES describes it).
function parseAnalysis(line, floats) {
  return line
    .split(/\s*info\s+/)
    .slice(1)
    .map(part => {
      let words = part.trim().split(/\s+/)
      let pvAt = words.indexOf('pv')
      let pairs = pvAt < 0 ? words : words.slice(0, pvAt)
      let info = {}
      for (let i = 0; i + 1 < pairs.length; i += 2) info[pairs[i]] = pairs[i + 1]
      let pv = pvAt < 0 ? [] : words.slice(pvAt + 1)
      let pass = pv.findIndex(v => v.toLowerCase() === 'pass')
      if (pass >= 0) pv = pv.slice(0, pass)
      let winrate = floats ? +info.winrate * 100 : +info.winrate / 100
      return {move: info.move, visits: +info.visits, winrate, pv}
    })
}

async function analyse(controller, name, color, floats) {
  let lines = []
  let started = null
  let ended = null
  let response = controller.sendCommand({name, args: [color, '50']}, ({line}) => {
    if (line.startsWith('info ')) lines.push(line)
  })
  while (lines.length < 2) await new Promise(r => setTimeout(r, 20))
  started = process.hrtime.bigint()
  // Sabaki's sendAbort: any command ends the stream.
  let abort = controller.sendCommand({name: 'protocol_version'})
  let result = await response
  ended = process.hrtime.bigint()
  assert(!result.error, `${name} failed: ${result.content}`)
  let version = await abort
  assert.strictEqual(version.content, '2')
  let variations = parseAnalysis(lines[lines.length - 1], floats)
  assert(variations.length > 0, `no variations in ${lines[lines.length - 1]}`)
  for (let v of variations) {
    assert(/^[A-HJ-T]\d+$/.test(v.move) || v.move === 'pass', `bad move ${v.move}`)
    assert(Number.isInteger(v.visits) && v.visits > 0, `bad visits ${v.visits}`)
    assert(v.winrate >= 0 && v.winrate <= 100, `win rate out of range: ${v.winrate}`)
    assert(v.pv.length > 0 && v.pv[0] === v.move, 'the pv starts with the move')
  }
  let ms = Number(ended - started) / 1e6
  console.log(`${name}: ${lines.length} reports, ${variations.length} moves in the last; ` +
    `stopped ${ms.toFixed(2)} ms after protocol_version was sent`)
}

async function main() {
  let controller = new Controller(binary, ['gtp', '--level', 'medium'])
  controller.start()
  let tracker = new ControllerStateTracker(controller)
  try {
    // Sabaki's start-up: everything at once, answers awaited afterwards.
    let startup = ['name', 'version', 'protocol_version', 'list_commands'].map(name =>
      controller.sendCommand({name})
    )
    let [name, , protocol, list] = await Promise.all(startup)
    assert.strictEqual(name.content, 'tengen')
    assert.strictEqual(protocol.content, '2')
    let commands = list.content.split('\n')
    for (let c of ['kata-analyze', 'lz-analyze', 'kata-genmove_analyze', 'undo']) {
      assert(commands.includes(c), `list_commands lacks ${c}`)
    }
    // A handicap game, then a switch to another line (undo two moves, play another).
    let handicap = [
      {name: 'set_free_handicap', args: ['D4', 'F6']},
      {name: 'play', args: ['W', 'E5']},
      {name: 'play', args: ['B', 'C6']},
      {name: 'play', args: ['W', 'G4']}
    ]
    await tracker.sync({komi: 0.5, boardsize: [9, 9], history: handicap})
    let variation = [...handicap.slice(0, 2), {name: 'play', args: ['B', 'G5']}]
    await tracker.sync({komi: 0.5, boardsize: [9, 9], history: variation})
    // The engine followed: C6 and G4 are empty again, G5 and the handicap stones are not.
    let send = (name, ...args) => controller.sendCommand({name, args})
    for (let v of ['G5', 'D4', 'F6', 'E5']) {
      assert((await send('play', 'W', v)).error, `${v} should hold a stone`)
    }
    for (let v of ['C6', 'G4']) {
      assert(!(await send('play', 'W', v)).error, `${v} should be empty`)
      assert(!(await send('undo')).error)
    }
    // Sabaki generates moves with the first genmove_analyze the engine lists.
    let genmove = commands.find(c =>
      ['genmove_analyze', 'kata-genmove_analyze', 'lz-genmove_analyze'].includes(c)
    )
    let play = null
    let moved = await controller.sendCommand({name: genmove, args: ['W', '50']}, ({line}) => {
      if (line.startsWith('play ')) play = line.slice(5).trim()
    })
    assert(!moved.error, moved.content)
    assert(/^[A-HJ-T]\d+$/.test(play) || play === 'pass', `bad play line: ${play}`)
    // Analysis: Sabaki picks the first of analyze, kata-analyze, lz-analyze it finds listed.
    let pick = ['analyze', 'kata-analyze', 'lz-analyze'].find(c => commands.includes(c))
    assert.strictEqual(pick, 'kata-analyze')
    await analyse(controller, 'kata-analyze', 'B', true)
    await analyse(controller, 'lz-analyze', 'B', false)
  } finally {
    await controller.stop(3000)
  }
}

main().then(
  () => console.log('sabaki client: all checks passed'),
  err => {
    console.error(err.stack || err)
    process.exit(1)
  }
)

"use strict";
// Plays a few moves of a 9x9 game through gtp2ogs 9's own code (its Game, Bot and
// PvOutputParser, loaded from its TypeScript sources as its own tests load them) with tengen as
// the bot, and a stand-in for OGS's socket that answers as the server would. Prints every
// message gtp2ogs sends to OGS (`OGS <- TOPIC JSON`), then checks them: one variation for
// observers after each of tengen's moves, and the `MALKOVICH:` chats only when expected.
//
// Usage: node drive.js TENGEN DIR ENGINES_TOML LEVEL SCORE CHAT
//   DIR: as fetch.sh leaves it (gtp2ogs/ with the sources, node_modules/ with the packages);
//   SCORE: 1 if the level's search knows the lead (its variations carry a score), else 0;
//   CHAT: 1 if the level has `ogs_chat = true`, else 0.

const fs = require("fs");
const path = require("path");
const Module = require("module");
const { EventEmitter } = require("events");

const [tengen, dir, enginesToml, level, score, chat] = process.argv.slice(2);
const expectScore = score === "1";
const expectChat = chat === "1";
const src = path.join(dir, "gtp2ogs", "src");
const write = (line) => process.stdout.write(`${line}\n`);
const fromDir = (name) => require(require.resolve(name, { paths: [dir] }));

// The TypeScript sources, transpiled to CommonJS when required (as ts-jest does for
// gtp2ogs's tests), with the compiler options of gtp2ogs's tsconfig that matter here.
const ts = fromDir("typescript");
require.extensions[".ts"] = (module, filename) => {
    const { outputText } = ts.transpileModule(fs.readFileSync(filename, "utf8"), {
        fileName: filename,
        compilerOptions: {
            module: ts.ModuleKind.CommonJS,
            target: ts.ScriptTarget.ES2015,
            resolveJsonModule: true,
        },
    });
    module._compile(outputText, filename);
};

/** Puts `exports` in the module cache as `filename`, so that requiring it returns them. */
function stand_in(filename, exports) {
    const module = new Module(filename);
    module.filename = filename;
    module.loaded = true;
    module.exports = exports;
    require.cache[filename] = module;
}

// goban-engine is OGS's board library without its renderer; where the registry lacks the
// version gtp2ogs pins, fetch.sh installs goban, the same code with the renderer, which
// needs a few browser globals just to load.
let gobanEngine;
try {
    gobanEngine = fromDir("goban-engine");
} catch {
    const element = () => ({
        style: {},
        classList: { add() {}, remove() {} },
        getContext: () => null,
        appendChild() {},
        setAttribute() {},
        addEventListener() {},
    });
    Object.assign(globalThis, {
        self: globalThis,
        window: globalThis,
        addEventListener() {},
        navigator: { userAgent: "node" },
        document: {
            body: element(),
            head: element(),
            createElement: element,
            createElementNS: element,
            addEventListener() {},
        },
    });
    gobanEngine = fromDir("goban");
}
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
    return request === "goban-engine" ? "goban-engine" : resolve.call(this, request, ...rest);
};
stand_in("goban-engine", gobanEngine);

// OGS: a socket whose sends the stand-in server answers.
const GAME = 7;
const BOT = 1;
const HUMAN = 2;
const SIZE = 9;
const BOT_MOVES = 3;
/** The opponent's moves, the first free one each turn (as OGS sends moves: x, y, time). */
const OPPONENT_MOVES = [[2, 2], [6, 6], [2, 6], [6, 2], [4, 2], [2, 4], [4, 6], [6, 4]];
class FakeSocket extends EventEmitter {
    connected = true;
    clock_drift = 0;
    sent = [];
    send(topic, data) {
        this.sent.push({ topic, data });
        write(`OGS <- ${topic} ${JSON.stringify(data)}`);
        server(topic, data);
    }
}
const socket = new FakeSocket();
stand_in(path.join(src, "socket.ts"), { socket });

// gtp2ogs reads its config from the command line: the bot is tengen at LEVEL.
process.argv = [process.argv[0], "gtp2ogs", "--", tengen, "gtp", "--config", enginesToml, "--level", level];
const { config } = require(path.join(src, "config.ts"));
const { trace } = require(path.join(src, "trace.ts"));
// gtp2ogs's log (tengen's stderr lines among it) goes to stderr, away from the messages.
for (const name of ["log", "info", "warn", "error", "debug", "trace"]) {
    trace[name] = (...args) => process.stderr.write(`gtp2ogs ${name}: ${args.join(" ")}\n`);
}
Object.assign(config, {
    bot_id: BOT,
    username: "tengen-bot",
    min_move_time: 0,
    greeting: undefined,
    farewell: undefined,
});
const { Game } = require(path.join(src, "Game.ts"));
const { bot_pools } = require(path.join(src, "pools.ts"));

const state = {
    game_id: GAME,
    width: SIZE,
    height: SIZE,
    komi: 7,
    handicap: 0,
    free_handicap_placement: false,
    initial_player: "black",
    rules: "chinese",
    phase: "play",
    moves: [],
    players: {
        black: { id: BOT, username: "tengen-bot" },
        white: { id: HUMAN, username: "human" },
    },
    time_control: { system: "none", speed: "correspondence" },
    clock: { current_player: BOT, black_player_id: BOT, white_player_id: HUMAN, last_move: Date.now() },
};
const botMoves = [];

function emitMove([x, y]) {
    const move = [x, y, 1000];
    state.moves.push(move);
    socket.emit(`game/${GAME}/move`, { game_id: GAME, move_number: state.moves.length, move });
}

/** An encoded move (`cd`, `..` for a pass) as x and y. */
function decode(encoded) {
    return encoded === ".." ? [-1, -1] : [0, 1].map((i) => encoded.charCodeAt(i) - 97);
}

let connects = 0;

/** What OGS does with a message from the bot. */
function server(topic, data) {
    if (topic === "game/connect") {
        if (++connects > 1) {
            // gtp2ogs reconnects after a failure: the game went wrong.
            finish();
            return;
        }
        setImmediate(() => socket.emit(`game/${GAME}/gamedata`, JSON.parse(JSON.stringify(state))));
    } else if (topic === "game/move") {
        botMoves.push({ move: data.move, move_number: state.moves.length + 1 });
        emitMove(decode(data.move));
        if (botMoves.length === BOT_MOVES) {
            // Chats after the last move have a moment to arrive.
            setTimeout(finish, 500);
            return;
        }
        // The opponent answers after gtp2ogs has released the bot (its release_delay).
        setTimeout(() => {
            const taken = (m) => state.moves.some(([x, y]) => x === m[0] && y === m[1]);
            emitMove(OPPONENT_MOVES.find((m) => !taken(m)));
        }, config.bot.release_delay + 200);
    } else if (topic === "game/resign") {
        finish();
    }
}

const failures = [];
function check(ok, what) {
    if (!ok) {
        failures.push(what);
    }
}

let finished = false;
function finish() {
    if (finished) {
        return;
    }
    finished = true;
    const chats = socket.sent.filter((m) => m.topic === "game/chat").map((m) => m.data);
    const variations = chats.filter((c) => c.body?.type === "analysis");
    const texts = chats.filter((c) => typeof c.body === "string");
    check(botMoves.length === BOT_MOVES, `tengen made ${botMoves.length} of ${BOT_MOVES} moves`);
    check(variations.length === botMoves.length, `${variations.length} variations`);
    const name = expectScore
        ? /^Win rate: \d+\.\d%, Score: -?\d+\.\d, Visits: \d+$/
        : /^Win rate: \d+\.\d%, Visits: \d+$/;
    for (const { move, move_number } of botMoves) {
        const mine = variations.filter((v) => v.move_number === move_number);
        check(mine.length === 1, `move ${move_number}: ${mine.length} variations`);
        const [v] = mine;
        if (!v) {
            continue;
        }
        const body = v.body;
        check(v.type === "malkovich", `move ${move_number}: variation on ${v.type}`);
        check(body.from === move_number - 1, `move ${move_number}: from ${body.from}`);
        check(body.moves.startsWith(move), `move ${move_number}: ${body.moves} is not ${move}'s`);
        check(/^([a-i]{2}|\.\.)+$/.test(body.moves), `move ${move_number}: moves ${body.moves}`);
        check(body.marks.circle === move, `move ${move_number}: circle ${body.marks.circle}`);
        check(name.test(body.name), `move ${move_number}: name ${body.name}`);
        const analysis = body.engine_analysis;
        check(analysis.visits > 0, `move ${move_number}: visits ${analysis.visits}`);
        check(analysis.win_rate >= 0 && analysis.win_rate <= 100, `win rate ${analysis.win_rate}`);
        check(expectScore === Number.isFinite(analysis.score), `move ${move_number}: score ${analysis.score}`);
    }
    const line = /^Black: win rate \d+\.\d%(, lead [+-]\d+\.\d points)?, \d+ visits$/;
    if (expectChat) {
        for (const { move_number } of botMoves) {
            const mine = texts.filter((t) => t.move_number === move_number);
            check(mine.length === 1, `move ${move_number}: ${mine.length} chats`);
            check(mine.every((t) => t.type === "malkovich"), `move ${move_number}: chat not malkovich`);
            check(mine.every((t) => line.test(t.body)), `move ${move_number}: chat ${mine[0]?.body}`);
            check(mine.every((t) => expectScore === t.body.includes(", lead ")), `lead in ${mine[0]?.body}`);
        }
    }
    check(texts.length === (expectChat ? botMoves.length : 0), `${texts.length} chats`);
    write(failures.length === 0 ? "all checks passed" : `FAILED: ${failures.join("; ")}`);
    for (const bot of bot_pools.main.instances ?? []) {
        bot.kill();
    }
    setTimeout(() => process.exit(failures.length === 0 ? 0 : 1), 200);
}

setTimeout(() => {
    write("FAILED: the game did not finish in 120 s");
    process.exit(1);
}, 120_000);

new Game(GAME);

// A network namespace joined to ours by a veth pair, so that a test reaches an app over a real
// connection that is not loopback, as a client on the LAN or in a container would: the app listens
// on our end's address (10.231.x.y+1, or fd31:0:<n>::1), the client runs inside the namespace
// (10.231.x.y+2, fd31:0:<n>::2) with `ip netns exec`. Needs root and iproute2 (`ip`:
// scripts/system-deps.mjs installs it, .ci/run runs as root); a machine where the namespace cannot
// be made fails the test, naming why, never skips it.
//
// Parallel test files (tap runs two at a time, and other checkouts may run beside) each claim one
// index n: the /30 10.231.0.0/16 holds at 4n and the /64 fd31:0:<n>::/64. The namespace's name
// carries n, and `ip netns add` of a name that exists fails, so creating the namespace is the
// claim. Only what the helper made is torn down.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomInt } from 'node:crypto'
import type { Test } from 'tap'

export interface Ran {
  /** The exit code; null when the command was killed (its timeout). */
  status: number | null
  stdout: string
  stderr: string
}

export interface NetnsResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The body, parsed when it is JSON, else as text; undefined when empty. */
  body: any
}

export interface NetnsRequest {
  url: string
  method?: string
  /** Exactly the headers sent, Host included when given; an array sends one line per value. */
  headers?: Record<string, string | string[]>
  body?: string
}

export interface Netns {
  /** The namespace's name (`ip netns exec <name> …`). */
  readonly name: string
  /** Our end of the pair: listen here to be reached from inside. */
  readonly hostAddress: string
  /** The namespace's end: where its requests come from. */
  readonly address: string
  /** Our end's IPv6 address (unique local, fd31::/16), unbracketed. */
  readonly hostAddress6: string
  /** The namespace's IPv6 address, unbracketed. */
  readonly address6: string
  /** Runs a command inside the namespace, killed after `timeout` ms (default 10 s). */
  run (command: string, args: readonly string[], options?: { timeout?: number }): Promise<Ran>
  /** One HTTP request from inside the namespace (node:http, no agent pooling): the status, headers and body. */
  request (request: NetnsRequest): Promise<NetnsResponse>
}

/** The subnets the helper may claim: 10.231.0.0/16 in /30s. */
const SUBNETS = 16384
/** How many indices one creation tries before it gives up (each taken one is another run's, or a leftover). */
const TRIES = 32

/** The client the namespace runs: one request from argv[1] (JSON), its answer as JSON on stdout. */
const CLIENT = `
const { request } = require('node:http')
const { url, method = 'GET', headers = {}, body } = JSON.parse(process.argv[1])
const req = request(url, { method, headers, agent: false }, (res) => {
  let text = ''
  res.setEncoding('utf8')
  res.on('data', (chunk) => { text += chunk })
  res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, headers: res.headers, text })))
})
req.on('error', (error) => { process.stderr.write(String(error)); process.exit(2) })
req.end(body)
`

function ip (args: readonly string[]): Ran {
  const ran = spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 })
  if (ran.error !== undefined) throw new Error(`ip ${args.join(' ')}: ${ran.error.message}: the test needs iproute2 (apt-get install -y iproute2; scripts/system-deps.mjs does it) and root`)
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr }
}

function must (args: readonly string[]): void {
  const ran = ip(args)
  if (ran.status !== 0) throw new Error(`ip ${args.join(' ')} failed (${String(ran.status)}): ${ran.stderr.trim()}`)
}

/**
 * Makes a namespace with a veth pair to ours and addresses on both ends, deleted when `t` ends;
 * throws (the test fails) when it cannot, saying why.
 */
export async function createNetns (t: Test): Promise<Netns> {
  const start = randomInt(SUBNETS)
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const index = (start + attempt) % SUBNETS
    const name = `sake-${index}`
    const added = ip(['netns', 'add', name])
    if (added.status !== 0) {
      if (/exists/i.test(added.stderr)) continue
      throw new Error(`ip netns add ${name} failed (${String(added.status)}): ${added.stderr.trim()}: the test needs root (CAP_SYS_ADMIN) and iproute2`)
    }
    const outside = `sake${index}h`
    const inside = `sake${index}n`
    // the index-th /30: its network address, then our end (+1) and the namespace's (+2)
    const subnet = `10.231.${index >> 6}.`
    const network = (index & 63) * 4
    const hostAddress = `${subnet}${network + 1}`
    const address = `${subnet}${network + 2}`
    const hostAddress6 = `fd31:0:${index.toString(16)}::1`
    const address6 = `fd31:0:${index.toString(16)}::2`
    const children = new Set<ChildProcess>()
    t.teardown(() => {
      for (const child of children) child.kill('SIGKILL')
      // our end first: deleting it deletes its peer inside; then the namespace's name
      ip(['link', 'del', outside])
      ip(['netns', 'del', name])
    })
    must(['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside])
    must(['link', 'set', inside, 'netns', name])
    must(['addr', 'add', `${hostAddress}/30`, 'dev', outside])
    // nodad: usable at once, not after duplicate address detection (nothing else is on this link)
    must(['addr', 'add', `${hostAddress6}/64`, 'dev', outside, 'nodad'])
    must(['link', 'set', outside, 'up'])
    must(['-n', name, 'addr', 'add', `${address}/30`, 'dev', inside])
    must(['-n', name, 'addr', 'add', `${address6}/64`, 'dev', inside, 'nodad'])
    must(['-n', name, 'link', 'set', inside, 'up'])
    must(['-n', name, 'link', 'set', 'lo', 'up'])

    const run = async (command: string, args: readonly string[], options: { timeout?: number } = {}): Promise<Ran> => {
      // spawn, never spawnSync: the app under test answers from this very event loop
      const child = spawn('ip', ['netns', 'exec', name, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      children.add(child)
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout ?? 10_000)
      let stdout = ''
      let stderr = ''
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
      const status = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject)
        child.once('close', (code) => resolve(code))
      }).finally(() => { clearTimeout(timer); children.delete(child) })
      return { status, stdout, stderr }
    }

    const request = async (options: NetnsRequest): Promise<NetnsResponse> => {
      const ran = await run(process.execPath, ['-e', CLIENT, JSON.stringify(options)])
      if (ran.status !== 0) throw new Error(`the request from namespace ${name} to ${options.url} failed (${String(ran.status)}): ${ran.stderr.trim()}`)
      const { status, headers, text } = JSON.parse(ran.stdout) as { status: number, headers: NetnsResponse['headers'], text: string }
      let body: any = text === '' ? undefined : text
      if (String(headers['content-type']).startsWith('application/json')) body = JSON.parse(text)
      return { status, headers, body }
    }

    return { name, hostAddress, address, hostAddress6, address6, run, request }
  }
  throw new Error(`no free subnet of 10.231.0.0/16 after ${TRIES} tries (namespaces sake-<n> left over? ip netns list)`)
}

// osf-tmux: tells osf-tmux (the tmux status of AI agents) what __TITLE__ is doing, as it happens.
// Written by `osf-tmux hooks install --agent __AGENT__`, which also removes it again
// (`osf-tmux hooks uninstall --agent __AGENT__`); edits here are lost on the next install.
// Each change of state runs osf-tmux's endpoint (osf_tmux/agents/report.py) with the event as
// JSON on its stdin; the endpoint marks this tmux pane. Outside tmux it does nothing.
import { spawn } from "node:child_process"

const REPORT = __REPORT__ // the endpoint's argv
const EVENTS = __EVENTS__ // event -> the state it reports (null: by the session's status)
const STATUSES = __STATUSES__ // session.status type -> state
const REPEAT_MS = 10000 // the same state is told again only after this long (reports expire)
const TIMEOUT_MS = __TIMEOUT_MS__ // a wedged endpoint is killed after this long

export const OsfTmux = async () => {
  if (!process.env.TMUX || !process.env.TMUX_PANE) return {}
  // Sub-agent sessions (the task tool) go idle while the session on screen still works: only
  // their prompts count. Their ids come from the session events.
  const children = new Set()
  let told = ""
  let toldAt = 0
  let queue = Promise.resolve()

  const run = (payload) =>
    new Promise((done) => {
      let child
      try {
        child = spawn(REPORT[0], REPORT.slice(1), { stdio: ["pipe", "ignore", "ignore"] })
      } catch {
        return done()
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS)
      child.on("error", () => {
        clearTimeout(timer)
        done()
      })
      child.on("close", () => {
        clearTimeout(timer)
        done()
      })
      child.stdin.on("error", () => {})
      child.stdin.end(payload)
    })

  const tell = (event, status) => {
    if (!Object.hasOwn(EVENTS, event)) return
    const byStatus = typeof status === "string" && Object.hasOwn(STATUSES, status)
    const state = EVENTS[event] === null ? (byStatus ? STATUSES[status] : null) : EVENTS[event]
    if (!state) return
    const now = Date.now()
    if (state === told && now - toldAt < REPEAT_MS) return
    told = state
    toldAt = now
    const payload = JSON.stringify({ hook_event_name: event, notification_type: status ?? null })
    // One at a time, in order: a late "working" must not overwrite the "blocked" after it.
    queue = queue.then(() => run(payload))
  }

  const child = (id) => typeof id === "string" && children.has(id)

  return {
    event: async ({ event }) => {
      const props = event.properties ?? {}
      const info = props.info ?? {}
      if ((event.type === "session.created" || event.type === "session.updated") && info.parentID)
        children.add(info.id)
      if (!Object.hasOwn(EVENTS, event.type)) return
      if (event.type.startsWith("session.") && child(props.sessionID)) return
      tell(event.type, props.status?.type)
    },
    "chat.message": async (input) => {
      if (!child(input?.sessionID)) tell("chat.message")
    },
    "tool.execute.before": async () => tell("tool.execute.before"),
    "tool.execute.after": async () => tell("tool.execute.after"),
  }
}

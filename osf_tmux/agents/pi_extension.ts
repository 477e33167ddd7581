// osf-tmux: reports Pi's state to osf-tmux (working, done) as Pi's agent events happen.
// Written by `osf-tmux hooks install --agent pi` (or `osf-tmux launch pi`), taken out again by
// `osf-tmux hooks uninstall --agent pi`; an install writes this file anew, edits are not kept.
//
// Each event runs osf-tmux's hook endpoint with a small JSON payload on stdin, one after the
// other in the order the events came (a later state must not be overtaken by an earlier one), and
// never holds Pi up: the handlers return at once. Outside tmux there is no pane to report on, so
// nothing is started.
import { spawn } from "node:child_process";

const REPORT: string[] = __REPORT_ARGV__;
const EVENTS: string[] = __EVENTS__;
const TIMEOUT_MS = __TIMEOUT_MS__;

type Payload = { hook_event_name: string; notification_type?: string };

function runReport(payload: Payload): Promise<void> {
	return new Promise((finish) => {
		try {
			const child = spawn(REPORT[0], REPORT.slice(1), {
				stdio: ["pipe", "ignore", "ignore"],
				timeout: TIMEOUT_MS,
			});
			child.on("error", () => finish());
			child.on("close", () => finish());
			child.stdin.on("error", () => {});
			child.stdin.end(JSON.stringify(payload));
		} catch {
			finish();
		}
	});
}

// How the run ended: the stop reason of its last answer ("stop", "aborted", "error", ...).
function stopReason(event: any): string {
	const messages: any[] = Array.isArray(event?.messages) ? event.messages : [];
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (message?.role === "assistant" && typeof message.stopReason === "string") {
			return message.stopReason;
		}
	}
	return "stop";
}

export default function osfTmux(pi: any) {
	if (!process.env.TMUX || !process.env.TMUX_PANE) return;
	let queue: Promise<void> = Promise.resolve();
	const send = (payload: Payload) => {
		queue = queue.then(() => runReport(payload));
	};
	for (const name of EVENTS) {
		pi.on(name, (event: any) => {
			send(
				name === "agent_end"
					? { hook_event_name: name, notification_type: stopReason(event) }
					: { hook_event_name: name },
			);
		});
	}
}

// The agent lab's Pi extension (osf-tmux, tools/agentlab/pi.py writes it into the throwaway
// HOME). Pi runs every tool without asking; people add gates like this one, and the lab needs
// them to record the dialogs an extension can put up: a select before each command (with a
// reason asked for in a text field when refused that way), a confirm before each edit, a select
// before a new file (with the content offered in an editor first), and a `question` tool whose
// dialog is a component of its own.
import { Key, matchesKey } from "@mariozechner/pi-tui";
import { Type } from "typebox";

export default function labGate(pi: any) {
	const allowedForSession = new Set<string>();

	pi.on("tool_call", async (event: any, ctx: any) => {
		if (!ctx.hasUI) return { block: true, reason: "no one to ask" };
		const input = event.input ?? {};
		if (event.toolName === "bash") {
			const command = String(input.command ?? "");
			if (allowedForSession.has(command)) return undefined;
			const choice = await ctx.ui.select(`Run this command?\n\n  ${command}`, [
				"Yes",
				"Yes, and do not ask again for it",
				"No, and tell Pi why",
				"No",
			]);
			if (choice === "Yes") return undefined;
			if (choice === "Yes, and do not ask again for it") {
				allowedForSession.add(command);
				return undefined;
			}
			if (choice === "No, and tell Pi why") {
				const why = await ctx.ui.input("Why not?", "a reason for Pi");
				return { block: true, reason: why ? `Refused: ${why}` : "Refused" };
			}
			return { block: true, reason: "Refused" };
		}
		if (event.toolName === "edit") {
			const ok = await ctx.ui.confirm(`Edit ${input.path}?`, "The file changes on disk.");
			return ok ? undefined : { block: true, reason: "Refused" };
		}
		if (event.toolName === "write") {
			const choice = await ctx.ui.select(`Create ${input.path}?`, [
				"Yes",
				"Edit the content first",
				"No",
			]);
			if (choice === "Yes") return undefined;
			if (choice === "Edit the content first") {
				const text = await ctx.ui.editor(`Content of ${input.path}`, String(input.content ?? ""));
				if (text === undefined) return { block: true, reason: "Refused" };
				input.content = text;
				return undefined;
			}
			return { block: true, reason: "Refused" };
		}
		return undefined;
	});

	pi.registerTool({
		name: "question",
		label: "Question",
		description: "Ask the user one question with a few options to choose from.",
		parameters: Type.Object({
			question: Type.String({ description: "The question" }),
			options: Type.Array(
				Type.Object({
					label: Type.String({ description: "What the option says" }),
					description: Type.Optional(Type.String({ description: "More about it" })),
				}),
				{ description: "The options" },
			),
		}),
		async execute(_id: string, params: any, _signal: any, _update: any, ctx: any) {
			const options: { label: string; description?: string }[] = params.options ?? [];
			const picked = await ctx.ui.custom((tui: any, theme: any, _keys: any, done: any) => {
				let current = 0;
				return {
					render(width: number): string[] {
						const fit = (s: string) => (s.length > width ? s.slice(0, width) : s);
						const rows = [theme.fg("accent", "─".repeat(width)), fit(` ${params.question}`), ""];
						options.forEach((option, i) => {
							const mark = i === current ? theme.fg("accent", "> ") : "  ";
							rows.push(fit(`${mark}${i + 1}. ${option.label}`));
							if (option.description) rows.push(fit(`     ${option.description}`));
						});
						rows.push("", fit(theme.fg("dim", " ↑↓ navigate • Enter to select • Esc to cancel")));
						rows.push(theme.fg("accent", "─".repeat(width)));
						return rows;
					},
					invalidate() {},
					handleInput(data: string) {
						if (matchesKey(data, Key.up)) current = Math.max(0, current - 1);
						else if (matchesKey(data, Key.down)) current = Math.min(options.length - 1, current + 1);
						else if (matchesKey(data, Key.enter)) return done(options[current]?.label ?? null);
						else if (matchesKey(data, Key.escape)) return done(null);
						tui.requestRender();
					},
				};
			});
			const text = picked ? `The user chose: ${picked}` : "The user did not answer.";
			return { content: [{ type: "text", text }], details: {} };
		},
	});
}

"""Scenes: several parties and several rolls, played out and solved exactly.

A scene (declared in a ruleset, `model.scene.Scene`) takes the ruleset's actions round after round
until an ending holds. `play` states what one step and one round do — the same rules a campaign's
actions follow (`runtime.state`; `state.campaign.take`'s parts, `runtime.state.roll_of`, the roll
and `rolled`) — and samples whole scenes with a trace;
`odds` solves a scene as an absorbing Markov chain over its states (`eval.markov`): the exact
chance of each ending, the distribution of its length in rounds, its expected length; `memo`
keeps per state what a scene played many times does not need to work out again; `campaign`
plays a scene from a stored campaign.
May import: the layers below it — `engine.errors`, `engine.syntax`, `engine.expr`, `engine.model`,
`engine.runtime`, `engine.eval`, `engine.compiler`, `engine.state`.
"""

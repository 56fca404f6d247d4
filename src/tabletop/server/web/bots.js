// The mark of a bot account ("BOT" before its name, as Lichess shows it), wherever a
// name is shown: the lobby, the game page, player pages and leaderboards.

/** A "BOT" mark to put before a bot's name; null for a person. */
export function botMark(bot) {
  if (!bot) return null;
  const mark = document.createElement("span");
  mark.className = "bot-mark";
  mark.textContent = "BOT";
  mark.title = "A bot: a program plays this account";
  return mark;
}

/** ``node`` (a name or a link) with the bot mark before it when ``bot``. */
export function withBotMark(node, bot) {
  const mark = botMark(bot);
  if (!mark) return node;
  const both = document.createElement("span");
  both.className = "bot-name";
  both.append(mark, " ", node);
  return both;
}

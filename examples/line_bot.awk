#!/usr/bin/awk -f
# A camelup bot in awk: no JSON library, no camelup, one line in and one line out.
#
# It speaks the line protocol of docs/tournaments.md: it answers a "start" with ready, a
# "move" with the last action index of its "legal" list (in the action table's order that is a
# bet or a card more often than a roll), and stops at "quit". Run it in a tournament or ladder
# as cmd:awk -W interactive -f examples/line_bot.awk (mawk, the usual awk of Debian, reads its
# input in blocks unless told -W interactive; gawk reads lines and ignores the option).
/"type": *"start"/ { print "{\"type\": \"ready\"}"; fflush(); next }
/"type": *"quit"/ { exit }
/"type": *"move"/ {
    legal = $0
    sub(/.*"legal": *\[/, "", legal)
    sub(/\].*/, "", legal)
    n = split(legal, choices, /, */)
    print "{\"action\": " choices[n] "}"
    fflush()
}

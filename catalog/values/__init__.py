"""Values a user stated, read from their words: names of things (sheets, channels, tables),
addresses, phone numbers, schedules, languages and conditions, each for the step it was said
for. Pure rules shared by the specialist (which writes configs), the annotator (which asks
for what is missing) and the conversation (whose confirmation shows them)."""

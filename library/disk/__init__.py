"""Files both processes share: renames (`durable`), locks (`locks`), state JSON (`statejson`)."""

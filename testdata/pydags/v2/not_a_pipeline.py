# Mentions neither of the two words safe mode looks for: never imported.
raise SystemExit("this file must not run")

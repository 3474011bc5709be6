module airlite

go 1.26.0

require (
	github.com/hashicorp/go-memdb v1.3.5
	github.com/julienschmidt/httprouter v1.3.0
	github.com/mattn/go-isatty v0.0.20
	github.com/rs/zerolog v1.35.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/crypto v0.58.0
)

require (
	github.com/adhocore/gronx v1.20.4 // indirect
	github.com/hashicorp/go-immutable-radix v1.3.1 // indirect
	github.com/hashicorp/golang-lru v0.5.4 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

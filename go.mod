module mutableprobes

go 1.26.0

require github.com/google/go-cmp v0.7.0 // indirect

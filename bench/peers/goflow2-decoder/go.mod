module flowhouse.io/bench/goflow2

go 1.23.0

require github.com/netsampler/goflow2/v2 v2.2.6

require google.golang.org/protobuf v1.36.11 // indirect

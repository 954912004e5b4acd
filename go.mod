module github.com/toolwire/toolwire

go 1.26

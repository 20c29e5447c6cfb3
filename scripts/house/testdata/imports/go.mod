module example.com/fake

go 1.22

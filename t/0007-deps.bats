#!/usr/bin/env bats
# share/deps.sh: what a fresh machine is told when something is missing.

load helper

@test "a missing package is named, with the command that installs it" {
	run env LLVM_CONFIG=llvm-config-99 sh "$TOP/share/deps.sh" --check
	assert_failure 1
	assert_output "nvcc-lite: missing packages: llvm-22-dev (run 'make deps' as root, or apt-get install llvm-22-dev)"
}

@test "not root, --install names the packages instead of installing" {
	[ "$(id -u)" = 0 ] || skip "needs root to run the script as another user"
	command -v runuser >/dev/null || skip "runuser is not installed"
	run runuser -u nobody -- env LLVM_CONFIG=llvm-config-99 PATH="$PATH" sh "$TOP/share/deps.sh" --install
	assert_failure 1
	assert_output --partial "nvcc-lite: missing packages: llvm-22-dev; as root run: apt-get install llvm-22-dev"
}

@test "nothing missing: --check and --install succeed quietly" {
	run sh "$TOP/share/deps.sh" --check
	assert_success
	assert_output ""
	# make check has just run --install: on this machine there is nothing left to install
	run sh "$TOP/share/deps.sh" --install
	assert_success
	assert_output ""
}

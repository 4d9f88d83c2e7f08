// Package otelfault makes faultline's problems speak OpenTelemetry.
package otelfault

package extractor_test

import (
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/service"
)

func serviceConfig() (extractor.Config, error) { return service.LoadConfig[extractor.Config]() }

func jetstreamOrdered() jetstream.OrderedConsumerConfig {
	return jetstream.OrderedConsumerConfig{FilterSubjects: []string{events.TurnsSubjects}}
}

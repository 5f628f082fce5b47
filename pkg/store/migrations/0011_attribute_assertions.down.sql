DROP TABLE attribute_assertions;
